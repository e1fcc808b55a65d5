#!/usr/bin/env bash
# Stands in for ncu and nsys in the tests: takes their options, runs the program, and prints the
# lines by which gpu-check recognises a profile, with the program's exit status.
tool=ncu
[[ ${1-} == profile ]] && tool=nsys && shift
while [[ $# -gt 0 && $1 == -* ]]; do
    case $1 in
    --launch-count | --section | -o) shift 2 ;;
    *) shift ;;
    esac
done
echo "==PROF== Connected to process (test stand-in for $tool)"
"$@"
status=$?
if [[ $tool == ncu ]]; then
    echo "    Duration                      usecond         1.00 (test stand-in)"
else
    echo "Generated: (test stand-in for nsys, no report)"
fi
exit $status

#!/bin/sh
# Runs one example program and reports its exit status on the last line, so that CTest can
# require both the program's PASS line and a zero exit status.
"$@"
status=$?
echo "[exit $status]"
exit $status

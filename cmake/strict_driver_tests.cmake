# Every test runs the emulated driver in strict mode (docs/driver.md, "Object lifetimes and strict
# mode"): a use of a destroyed handle, which would crash on NVIDIA's driver, aborts the test.
# Tests that misuse a handle on purpose to check the error code say CFRJIT_EMULATOR_STRICT=0
# themselves.
#
# cfrjit_strict_driver_tests(): call at the end of each CMakeLists.txt (or included file) that
# adds tests with add_test; it sets CFRJIT_EMULATOR_STRICT=1 on the tests of that directory whose
# ENVIRONMENT does not name it. Catch2 suites get it through catch_discover_tests' PROPERTIES.
set(CFRJIT_STRICT_DRIVER_ENV CFRJIT_EMULATOR_STRICT=1)

function(cfrjit_strict_driver_tests)
    get_property(tests DIRECTORY PROPERTY TESTS)
    foreach(test IN LISTS tests)
        get_test_property("${test}" ENVIRONMENT env)
        if(NOT env MATCHES "CFRJIT_EMULATOR_STRICT=")
            set_property(TEST "${test}" APPEND PROPERTY ENVIRONMENT ${CFRJIT_STRICT_DRIVER_ENV})
        endif()
        # The shim verifies every pass fully in tests (docs/verifier.md).
        if(NOT env MATCHES "CFRJIT_VERIFY=")
            set_property(TEST "${test}" APPEND PROPERTY ENVIRONMENT CFRJIT_VERIFY=full)
        endif()
    endforeach()
endfunction()

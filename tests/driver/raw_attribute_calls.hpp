// The attribute queries called with attribute values outside their enumerations, as a C program
// can call them: raw_attribute_calls.cpp declares them with int parameters (it does not include
// cuda.h), so that no C++ enum object ever holds such a value on the caller's side. Results are
// CUresult values.
#pragma once

namespace raw_calls {

int device_attribute(int* value, int attribute, int device);
int function_attribute(int* value, int attribute, void* function);
int set_function_attribute(void* function, int attribute, int value);

} // namespace raw_calls

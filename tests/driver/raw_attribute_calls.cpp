// Attribute queries with raw attribute values (raw_attribute_calls.hpp).
#include "raw_attribute_calls.hpp"

#if defined(CFRJIT_CUDA_HEADER)

extern "C" {
int cuDeviceGetAttribute(int* pi, int attrib, int dev);
int cuFuncGetAttribute(int* pi, int attrib, void* hfunc);
int cuFuncSetAttribute(void* hfunc, int attrib, int value);
}

namespace raw_calls {

int device_attribute(int* value, int attribute, int device) {
    return cuDeviceGetAttribute(value, attribute, device);
}

int function_attribute(int* value, int attribute, void* function) {
    return cuFuncGetAttribute(value, attribute, function);
}

int set_function_attribute(void* function, int attribute, int value) {
    return cuFuncSetAttribute(function, attribute, value);
}

} // namespace raw_calls

#endif

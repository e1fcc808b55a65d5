// dlsym, defined without a symbol version so that it answers both dlsym@GLIBC_2.34 (programs
// with static cudart) and dlsym@GLIBC_2.2.5 (libcudart.so). Only a lookup of a CUDA entry point
// ("cu...") on a real handle is answered by the shim, which puts its wrapper in place of the
// driver's function. Every other lookup, and every RTLD_NEXT lookup, jumps to libc's dlsym with
// the caller's own return address still on the stack, so that glibc resolves RTLD_NEXT relative
// to the real caller exactly as it would without the shim: other preloaded libraries may call
// dlsym from their constructors, before the shim is initialised (docs/shim.md, "Coexisting").
#include "interpose/hooks.hpp"
#include "interpose/real_driver.hpp"

#include <dlfcn.h>

extern "C" {

// Read by the trampoline below; written once, by cfr_resolve_libc_dlsym.
__attribute__((visibility("hidden"))) void* cfr_libc_dlsym = nullptr;

__attribute__((visibility("hidden"), used)) CFRJIT_BEFORE_SANITIZERS void*
cfr_resolve_libc_dlsym() {
    cfr_libc_dlsym = reinterpret_cast<void*>(cfr::interpose::real_dlsym());
    return cfr_libc_dlsym;
}

// A driver entry point looked up on a handle (the driver's, or RTLD_DEFAULT): libc's answer,
// with the shim's wrapper in place of a wrapped function.
__attribute__((visibility("hidden"), used)) void* cfr_dlsym_driver_name(void* handle,
                                                                        const char* name) {
    using namespace cfr::interpose;
    const DlsymFn libc_dlsym = real_dlsym();
    if (libc_dlsym == nullptr) return nullptr;
    void* result = libc_dlsym(handle, name);
    if (result == nullptr) return nullptr;
    const Hook* h = find_hook(name);
    if (h == nullptr) return result;
    return wrap(static_cast<HookId>(h - &hook(static_cast<HookId>(0))), result);
}

} // extern "C"

#if defined(__x86_64__)
// dlsym(handle %rdi, name %rsi): "cu..." names on any handle but RTLD_NEXT ((void*)-1) go to
// cfr_dlsym_driver_name; everything else is a tail jump into libc's dlsym.
asm(R"(
    .text
    .globl dlsym
    .type dlsym, @function
dlsym:
    .cfi_startproc
    cmpq $-1, %rdi
    je 1f
    testq %rsi, %rsi
    je 1f
    cmpb $0x63, (%rsi)
    jne 1f
    cmpb $0x75, 1(%rsi)
    jne 1f
    jmp cfr_dlsym_driver_name
1:
    movq cfr_libc_dlsym(%rip), %rax
    testq %rax, %rax
    je 2f
    jmp *%rax
2:
    pushq %rdi
    .cfi_adjust_cfa_offset 8
    pushq %rsi
    .cfi_adjust_cfa_offset 8
    subq $8, %rsp
    .cfi_adjust_cfa_offset 8
    call cfr_resolve_libc_dlsym
    addq $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq %rsi
    .cfi_adjust_cfa_offset -8
    popq %rdi
    .cfi_adjust_cfa_offset -8
    testq %rax, %rax
    je 3f
    jmp *%rax
3:
    ret
    .cfi_endproc
    .size dlsym, .-dlsym
)");
#else
#error "interpose/dlsym_hook.cpp: the dlsym trampoline is written for x86-64 only"
#endif

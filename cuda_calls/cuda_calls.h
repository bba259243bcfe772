/* cuda_calls/cuda_calls.h: how to read the one list of the CUDA runtime calls the kit
 * knows (cuda_calls.inc), and the macros that turn an entry into C.
 *
 * The list is an X-macro: each entry is
 *
 *     CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, (params))
 *
 * and a user defines CUDA_CALLS_ENTRY, includes cuda_calls.inc and undefines it again:
 *
 *     #include "cuda_calls/cuda_calls.h"
 *     #define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) \
 *         ret name CUDA_CALLS_PARAMS(params);
 *     #include "cuda_calls/cuda_calls.inc"
 *     #undef CUDA_CALLS_ENTRY
 *
 * What is made from it: the simulator's prototypes (sim/include/cuda_runtime_api.h), the
 * interposer's __real_ and __wrap_ declarations (trace/gpu/real.h), its -Wl,--wrap list
 * (wrapped.bzl, written by cuda_calls_gen), the by-name macros the interposer's wrappers
 * are written with (cuda_calls_by_name.h, also written by cuda_calls_gen), and the check
 * that every entry is the CUDA 13 toolkit's prototype (calls_check.cc).
 *
 * The fields, each a token (pasted, so a user can dispatch on it: MY_##kind):
 *   name        the call, as the toolkit's cuda_runtime_api.h declares it.
 *   ret         its return type: cudaError_t, or const char * for the error strings.
 *   kind        what it works on: device, error, memory (allocations and registration),
 *               copy (copies and memsets), stream, event, graph (capture and graphs).
 *   sync        what the host does in it:
 *                 async  enqueues device work on a stream and returns without waiting;
 *                 sync   can block the host until device work has finished (always, as
 *                        cudaStreamSynchronize, or for some memory, as cudaMemcpy and
 *                        cudaMemset; cudaFree and cudaFreeHost waited for the device on
 *                        an H200, docs/simulator.md);
 *                 host   host-side work of the runtime only (creating, destroying,
 *                        querying, choosing a device): no device work of its own;
 *                 pure   depends on its arguments only (the error strings): it needs no
 *                        runtime state and may be answered anywhere.
 *   per_thread  the entry point that code compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM
 *               calls instead (the toolkit renames the call to it): ptds (name_ptds, for
 *               calls with an implicit stream), ptsz (name_ptsz, for calls with a stream
 *               argument) or none (not renamed). The simulator implements each ptds/ptsz
 *               entry point (sim/per_thread_calls.c), the interposer wraps it when it
 *               wraps the call, and a lab's student program defines it
 *               (labs/client/cuda_stubs.c), the referee performing it (labs/harness/remote.c).
 *   gpu         wrapped: the GPU build's interposer wraps the call (and its per-thread entry
 *               point) with -Wl,--wrap (trace/gpu/interpose.c); unwrapped: it does not.
 *   params      the parameters in the toolkit's order, with the toolkit's types and names,
 *               each as its role: (void) for none, else a list of
 *                 in(T, n)              a value passed as it is: a number, flags, a handle
 *                                       (stream, event, graph), a device address;
 *                 in_default(T, n, v)   the same, with the default argument v that the
 *                                       toolkit gives C++ callers;
 *                 out(T, n)             a host pointer to one *n that the call writes;
 *                 inout(T, n)           a host pointer to one *n that the call reads and
 *                                       writes;
 *                 out_array(T, n, c)    a host array the call writes elements to, as many as
 *                                       the parameter c says (*c where c is a pointer); may
 *                                       be NULL;
 *                 dst(T, n, b)          memory (host or device, by the copy's
 *                                       cudaMemcpyKind and the pointer) that the call
 *                                       writes, b bytes (b names the parameter that holds
 *                                       the count);
 *                 src(T, n, b)          memory that the call reads, b bytes;
 *                 host_mem(T, n, b)     host memory of b bytes that the call page-locks
 *                                       (cudaHostRegister): it must stay mapped;
 *                 addr(T, n)            the start address of an allocation, which names it
 *                                       (cudaFree, cudaFreeHost, cudaHostUnregister): no
 *                                       bytes are read or written through it;
 *                 host_fn(T, n)         a host function the runtime calls later, from a
 *                                       thread of its own;
 *                 host_fn_arg(T, n)     the argument that function is called with.
 *               These are what a stub needs that sends the call elsewhere and brings its
 *               answer back: what to send (in, inout, src, host_mem), what to copy back
 *               (out, inout, out_array, dst), which memory both sides must share (dst, src,
 *               host_mem), and what comes back as a call (host_fn).
 *
 * After the toolkit's per-thread renames (#define cudaMemcpy cudaMemcpy_ptds) an unpasted
 * `name` is the renamed entry point: paste it (prefix##name, #name) or expand the list
 * before the renames, as sim/include/cuda_runtime_api.h does.
 *
 * The words of the list are plain lower-case words. The parameter roles and the per_thread
 * words are read by every use of the list (the simulator's declarations too), so a macro of
 * one of those names would change the list as it is read: this header refuses to be read
 * after one. The other fields' words are read only by a use that passes them on unpasted
 * (trace/gpu/real.h passes gpu to CUDA_CALLS_IF_WRAPPED); elsewhere a macro of such a name
 * does no harm. */
#ifndef STREAMLAB_CUDA_CALLS_H
#define STREAMLAB_CUDA_CALLS_H

#if defined(in) || defined(in_default) || defined(out) || defined(inout) || defined(out_array) || \
    defined(dst) || defined(src) || defined(host_mem) || defined(addr) || defined(host_fn) ||     \
    defined(host_fn_arg) || defined(ptds) || defined(ptsz) || defined(none)
#error "cuda_calls.h: a macro is named in, in_default, out, inout, out_array, dst, src, host_mem, addr, host_fn, host_fn_arg, ptds, ptsz or none, words of the list of CUDA calls; define it after including the CUDA runtime headers"
#endif

/* ---- parameters ---------------------------------------------------------------------- */

/* The parameter list of a declaration: (void *dst, const void *src, size_t count, ...). */
#define CUDA_CALLS_PARAMS(params) (CUDA_CALLS_MAP_(CUDA_CALLS_DECL_, CUDA_CALLS_UNWRAP_ params))
/* The same with the toolkit's default arguments where the compiler is C++. */
#define CUDA_CALLS_PARAMS_DEFAULTS(params) (CUDA_CALLS_MAP_(CUDA_CALLS_DECL_DEFAULT_, CUDA_CALLS_UNWRAP_ params))
/* The argument list of a call that passes the parameters on: (dst, src, count, ...). */
#define CUDA_CALLS_ARGS(params) (CUDA_CALLS_MAP_(CUDA_CALLS_ARG_, CUDA_CALLS_UNWRAP_ params))
/* prefix##role(T, n, ...) for each parameter, one after the other with nothing between
 * (for a user that treats each role its own way); (void) gives prefix##void. */
#define CUDA_CALLS_EACH(prefix, params) CUDA_CALLS_EACH_(prefix, CUDA_CALLS_UNWRAP_ params)

/* ---- fields --------------------------------------------------------------------------- */

/* The tokens that follow, only where the call's gpu field is wrapped. */
#define CUDA_CALLS_IF_WRAPPED(gpu, ...) CUDA_CALLS_IF_WRAPPED_##gpu(__VA_ARGS__)
/* The tokens that follow, only where the call has a per-thread entry point (ptds, ptsz). */
#define CUDA_CALLS_IF_PER_THREAD(per_thread, ...) CUDA_CALLS_IF_PER_THREAD_##per_thread(__VA_ARGS__)
/* ---- how they work ---------------------------------------------------------------------- */

#define CUDA_CALLS_UNWRAP_(...) __VA_ARGS__
#define CUDA_CALLS_CAT_(a, b) a##b
#define CUDA_CALLS_CAT(a, b) CUDA_CALLS_CAT_(a, b)
#define CUDA_CALLS_COUNT_(...) CUDA_CALLS_COUNT_N_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define CUDA_CALLS_COUNT_N_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) n

/* f(CUDA_CALLS_ROLE_##p) for each parameter p, separated by commas. */
#define CUDA_CALLS_MAP_(f, ...) CUDA_CALLS_CAT(CUDA_CALLS_MAP_, CUDA_CALLS_COUNT_(__VA_ARGS__))(f, __VA_ARGS__)
#define CUDA_CALLS_MAP_1(f, a) f(CUDA_CALLS_ROLE_##a)
#define CUDA_CALLS_MAP_2(f, a, ...) f(CUDA_CALLS_ROLE_##a), CUDA_CALLS_MAP_1(f, __VA_ARGS__)
#define CUDA_CALLS_MAP_3(f, a, ...) f(CUDA_CALLS_ROLE_##a), CUDA_CALLS_MAP_2(f, __VA_ARGS__)
#define CUDA_CALLS_MAP_4(f, a, ...) f(CUDA_CALLS_ROLE_##a), CUDA_CALLS_MAP_3(f, __VA_ARGS__)
#define CUDA_CALLS_MAP_5(f, a, ...) f(CUDA_CALLS_ROLE_##a), CUDA_CALLS_MAP_4(f, __VA_ARGS__)
#define CUDA_CALLS_MAP_6(f, a, ...) f(CUDA_CALLS_ROLE_##a), CUDA_CALLS_MAP_5(f, __VA_ARGS__)
#define CUDA_CALLS_MAP_7(f, a, ...) f(CUDA_CALLS_ROLE_##a), CUDA_CALLS_MAP_6(f, __VA_ARGS__)
#define CUDA_CALLS_MAP_8(f, a, ...) f(CUDA_CALLS_ROLE_##a), CUDA_CALLS_MAP_7(f, __VA_ARGS__)

/* prefix##p for each parameter p, with nothing between. */
#define CUDA_CALLS_EACH_(prefix, ...) CUDA_CALLS_CAT(CUDA_CALLS_EACH_, CUDA_CALLS_COUNT_(__VA_ARGS__))(prefix, __VA_ARGS__)
#define CUDA_CALLS_EACH_1(prefix, a) prefix##a
#define CUDA_CALLS_EACH_2(prefix, a, ...) prefix##a CUDA_CALLS_EACH_1(prefix, __VA_ARGS__)
#define CUDA_CALLS_EACH_3(prefix, a, ...) prefix##a CUDA_CALLS_EACH_2(prefix, __VA_ARGS__)
#define CUDA_CALLS_EACH_4(prefix, a, ...) prefix##a CUDA_CALLS_EACH_3(prefix, __VA_ARGS__)
#define CUDA_CALLS_EACH_5(prefix, a, ...) prefix##a CUDA_CALLS_EACH_4(prefix, __VA_ARGS__)
#define CUDA_CALLS_EACH_6(prefix, a, ...) prefix##a CUDA_CALLS_EACH_5(prefix, __VA_ARGS__)
#define CUDA_CALLS_EACH_7(prefix, a, ...) prefix##a CUDA_CALLS_EACH_6(prefix, __VA_ARGS__)
#define CUDA_CALLS_EACH_8(prefix, a, ...) prefix##a CUDA_CALLS_EACH_7(prefix, __VA_ARGS__)

/* Each role as (type, name, default): the default is "= v" for C++ callers, else empty. */
#if defined(__cplusplus)
#define CUDA_CALLS_DEFAULT_(v) = v
#else
#define CUDA_CALLS_DEFAULT_(v)
#endif
#define CUDA_CALLS_ROLE_void (void, , )
#define CUDA_CALLS_ROLE_in(T, n) (T, n, )
#define CUDA_CALLS_ROLE_in_default(T, n, v) (T, n, CUDA_CALLS_DEFAULT_(v))
#define CUDA_CALLS_ROLE_out(T, n) (T, n, )
#define CUDA_CALLS_ROLE_inout(T, n) (T, n, )
#define CUDA_CALLS_ROLE_out_array(T, n, c) (T, n, )
#define CUDA_CALLS_ROLE_dst(T, n, b) (T, n, )
#define CUDA_CALLS_ROLE_src(T, n, b) (T, n, )
#define CUDA_CALLS_ROLE_host_mem(T, n, b) (T, n, )
#define CUDA_CALLS_ROLE_addr(T, n) (T, n, )
#define CUDA_CALLS_ROLE_host_fn(T, n) (T, n, )
#define CUDA_CALLS_ROLE_host_fn_arg(T, n) (T, n, )

#define CUDA_CALLS_DECL_(p) CUDA_CALLS_DECL_3_ p
#define CUDA_CALLS_DECL_3_(T, n, d) T n
#define CUDA_CALLS_DECL_DEFAULT_(p) CUDA_CALLS_DECL_DEFAULT_3_ p
#define CUDA_CALLS_DECL_DEFAULT_3_(T, n, d) T n d
#define CUDA_CALLS_ARG_(p) CUDA_CALLS_ARG_3_ p
#define CUDA_CALLS_ARG_3_(T, n, d) n

#define CUDA_CALLS_IF_WRAPPED_wrapped(...) __VA_ARGS__
#define CUDA_CALLS_IF_WRAPPED_unwrapped(...)
#define CUDA_CALLS_IF_PER_THREAD_ptds(...) __VA_ARGS__
#define CUDA_CALLS_IF_PER_THREAD_ptsz(...) __VA_ARGS__
#define CUDA_CALLS_IF_PER_THREAD_none(...)

#endif

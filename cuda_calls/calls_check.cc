// cuda_calls/calls_check.cc: the list of CUDA calls (cuda_calls.inc) against the runtime
// header this unit is compiled with: the toolkit's cuda_runtime_api.h where one is found
// (//cuda_calls:toolkit_calls_test), the simulator's (//sim:cuda_calls_test). What is wrong
// fails to compile, naming the call:
//   - each entry's prototype is the header's, type for type (std::is_same on the function
//     pointer type: an enum is not an int, a const is not dropped);
//   - the header renames exactly the calls whose per_thread field says so, to name_ptds or
//     name_ptsz as it says, when the unit defines CUDA_API_PER_THREAD_DEFAULT_STREAM (this
//     file is compiled once without and once with it);
//   - each parameter's role fits its type: out, inout and out_array point at something the
//     call may write, src at const memory, dst, src and host_mem name an integer parameter
//     for their bytes, host_fn is a function pointer, a default converts to its type.
// And what is missing fails to link: every entry point is taken by address (cuda_calls_seen,
// checked at run time by calls_check_test.cc).
#include <cuda_runtime_api.h>

#include <type_traits>

#include "cuda_calls/calls_check.h"
#include "cuda_calls/cuda_calls.h"

namespace {

#define STR_(x) #x
#define STR(x) STR_(x)

constexpr bool same_text(const char *a, const char *b) {
    for (; *a && *a == *b; ++a, ++b) {
    }
    return *a == *b;
}

// ---- prototypes and renames -----------------------------------------------------------------

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define EXPECTED_SPELLING(quoted, per_thread) quoted CUDA_CALLS_IF_PER_THREAD(per_thread, "_" #per_thread)
#else
#define EXPECTED_SPELLING(quoted, per_thread) quoted
#endif

// `name` unpasted is what the header made of it: the renamed entry point in a per-thread unit;
// #name is the list's spelling.
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                                 \
    static_assert(std::is_same<decltype(&name), ret(*) CUDA_CALLS_PARAMS(params)>::value,               \
                  #name ": the list's prototype is not the runtime header's");                          \
    static_assert(same_text(STR(name), EXPECTED_SPELLING(#name, per_thread)),                            \
                  #name ": the header's per-thread rename is not the list's per_thread field");
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

// ---- roles --------------------------------------------------------------------------------

template <class T> constexpr bool writable_pointer() {
    return std::is_pointer<T>::value && !std::is_const<typename std::remove_pointer<T>::type>::value;
}
template <class T> constexpr bool const_pointer() {
    return std::is_pointer<T>::value && std::is_const<typename std::remove_pointer<T>::type>::value;
}

#define ROLE_void
#define ROLE_in(T, n) (void)n;
#define ROLE_in_default(T, n, v)                                                                         \
    (void)n;                                                                                             \
    {                                                                                                    \
        T default_ = v; /* the default is a T */                                                         \
        (void)default_;                                                                                  \
    }
#define ROLE_out(T, n)                                                                                   \
    (void)n;                                                                                             \
    static_assert(writable_pointer<T>() && sizeof(*n) > 0, #n ": out is a pointer to what the call writes");
#define ROLE_inout(T, n) ROLE_out(T, n)
#define ROLE_out_array(T, n, c)                                                                          \
    ROLE_out(T, n) static_assert(sizeof(c) > 0, #n ": its count names a parameter");
#define ROLE_bytes(T, n, b)                                                                              \
    (void)n;                                                                                             \
    static_assert(std::is_pointer<T>::value, #n ": memory is given by a pointer");                      \
    static_assert(std::is_integral<decltype(b)>::value, #n ": its bytes name an integer parameter");
#define ROLE_dst(T, n, b)                                                                                \
    ROLE_bytes(T, n, b) static_assert(writable_pointer<T>(), #n ": dst is memory the call writes");
#define ROLE_src(T, n, b)                                                                                \
    ROLE_bytes(T, n, b) static_assert(const_pointer<T>(), #n ": src is memory the call only reads");
#define ROLE_host_mem(T, n, b) ROLE_bytes(T, n, b)
#define ROLE_addr(T, n)                                                                                  \
    (void)n;                                                                                             \
    static_assert(std::is_pointer<T>::value, #n ": addr is an address");
#define ROLE_host_fn(T, n)                                                                               \
    (void)n;                                                                                             \
    static_assert(std::is_function<typename std::remove_pointer<T>::type>::value,                        \
                  #n ": host_fn is a function pointer");
#define ROLE_host_fn_arg(T, n)                                                                           \
    (void)n;                                                                                             \
    static_assert(std::is_pointer<T>::value, #n ": host_fn_arg is a pointer");

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                                 \
    [[maybe_unused]] void roles_##name CUDA_CALLS_PARAMS(params) { CUDA_CALLS_EACH(ROLE_, params) }
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
#endif

}  // namespace

// ---- what the linker bound ------------------------------------------------------------------

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define SEEN cuda_calls_per_thread
#define SEEN_COUNT cuda_calls_per_thread_count
#else
#define SEEN cuda_calls_plain
#define SEEN_COUNT cuda_calls_plain_count
#endif

extern const cuda_calls_seen SEEN[] = {
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                                 \
    {#name, STR(name), reinterpret_cast<void (*)(void)>(&name)},
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
};
extern const size_t SEEN_COUNT = sizeof(SEEN) / sizeof(SEEN[0]);

/* kernels/cpu/affine.c: composing the affine map of process with itself (see cpu.h). */
#include "kernels/cpu/cpu.h"

kernels_affine kernels_affine_compose(kernels_affine outer, kernels_affine inner) {
    /* outer(inner(x)) = ao * (ai * x + ci) + co = (ao * ai) * x + (ao * ci + co). */
    kernels_affine r = {outer.a * inner.a, outer.a * inner.c + outer.c};
    return r;
}

kernels_affine kernels_affine_power(kernels_process_params params) {
    kernels_affine result = {1u, 0u};
    kernels_affine base = {params.mul, params.add};
    /* Powers of one map commute, so the order of composition does not matter. */
    for (uint32_t k = params.iters; k != 0; k >>= 1) {
        if (k & 1u) result = kernels_affine_compose(base, result);
        base = kernels_affine_compose(base, base);
    }
    return result;
}

uint32_t kernels_affine_apply(kernels_affine map, uint32_t x) { return map.a * x + map.c; }

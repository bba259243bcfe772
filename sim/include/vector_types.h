/* sim/include/vector_types.h: dim3, the grid and block shape of a kernel launch, as the
 * CUDA toolkit declares it (three unsigned ints; in C++ a constructor defaulting each
 * dimension to 1, so that dim3(256) is 256x1x1). */
#ifndef STREAMLAB_SIM_VECTOR_TYPES_H
#define STREAMLAB_SIM_VECTOR_TYPES_H

struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
#endif
};
typedef struct dim3 dim3;

#endif

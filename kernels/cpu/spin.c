/* kernels/cpu/spin.c: the CPU body of spin (see cpu.h). */
#include "kernels/cpu/cpu.h"
#include "kernels/math.h"

void kernels_cpu_spin(uint32_t *marks, uint32_t mark, uint32_t block_begin, uint32_t block_end) {
    for (uint32_t b = block_begin; b < block_end; b++) marks[b] = kernels_spin_mark(mark, b);
}

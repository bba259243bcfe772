/* labs/harness/spec_support.c: the small helpers every spec.c uses to measure its bound
 * (see spec.h): event timing, medians, and the bound's figures. */
#include <stdlib.h>

#include "labs/harness/spec.h"

void lab_bound_add(lab_bound *b, const char *key, double value) {
    if (b->n_figures >= LAB_BOUND_FIGURES) return;
    b->figures[b->n_figures].key = key;
    b->figures[b->n_figures].value = value;
    b->n_figures++;
}

double lab_spec_elapsed_ns(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    if (cudaEventSynchronize(b) != cudaSuccess || cudaEventElapsedTime(&ms, a, b) != cudaSuccess) return -1.0;
    return (double)ms * 1e6;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lab_spec_median(double *v, int n) {
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof(double), compare_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Native benchmark harness: the same matvec.c compiled with gcc -O3 -march=native -DDL_NATIVE.
 * Usage: bench_native ROWS COLS [ROWS COLS ...]; prints one JSON object per shape with GMAC/s of
 * the fast path (x rounded to 7-bit integers) and the exact path (float32 x). Weights and inputs are pseudo-random. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "decodelab.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double gmacs(int fast, const int8_t *q, const float *s, const float *x, float *y, int rows, int cols,
                    int8_t *scratch) {
    long reps = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < 16; i++) {
            if (fast) dl_matvec_fast(q, s, x, y, rows, cols, scratch, 0);
            else dl_matvec_f32x(q, s, x, y, rows, cols);
        }
        reps += 16;
        t = now() - t0;
    } while (t < 0.05);
    return (double)rows * cols * reps / t / 1e9;
}

int main(int argc, char **argv) {
    unsigned seed = 12345;
    for (int a = 1; a + 1 < argc; a += 2) {
        int rows = atoi(argv[a]), cols = atoi(argv[a + 1]);
        int8_t *q = malloc((size_t)rows * cols), *scratch = malloc(cols + 16);
        float *s = malloc(4 * rows), *x = malloc(4 * cols), *y = malloc(4 * rows);
        for (long i = 0; i < (long)rows * cols; i++) q[i] = (int8_t)((seed = seed * 1103515245u + 12345u) >> 24) | 1;
        for (int i = 0; i < rows; i++) s[i] = 0.01f;
        for (int i = 0; i < cols; i++) x[i] = (float)((int)((seed = seed * 1103515245u + 12345u) >> 16) % 2000 - 1000) / 500.0f;
        double f = gmacs(1, q, s, x, y, rows, cols, scratch), e = gmacs(0, q, s, x, y, rows, cols, scratch);
        printf("{\"shape\": \"%dx%d\", \"native_fast\": %.4f, \"native_exact\": %.4f, \"check\": %.6f}\n", rows, cols, f, e, y[0]);
        free(q); free(scratch); free(s); free(x); free(y);
    }
    return 0;
}

/*
 * logits.c: the O(vocab) reductions behind one sampler step (ABI in decodelab.h).
 *
 * The sampler's logic lives in Python (py_src/decodelab/sampler.py). Python cannot touch every
 * one of 4096 logits per token cheaply in Pyodide (converting them to Python floats alone takes
 * ~0.25 ms), so this function does the parts that must see all of them: with some logits
 * replaced (the repetition penalty's new values), it returns the exact top-N tokens and the
 * sums that give the softmax normaliser and the entropy at a temperature.
 */
#include "decodelab.h"
#include "fastmath.h"

/* "a ranks above b": larger value first, the lower id on ties. */
static int above(float va, int32_t ia, float vb, int32_t ib) { return va > vb || (va == vb && ia < ib); }

/* Min-heap on rank (the weakest kept candidate at the root). */
static void sift_down(float *v, int32_t *id, int32_t n, int32_t i) {
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && above(v[w], id[w], v[l], id[l])) w = l;
        if (r < n && above(v[w], id[w], v[r], id[r])) w = r;
        if (w == i) return;
        float tv = v[i]; v[i] = v[w]; v[w] = tv;
        int32_t ti = id[i]; id[i] = id[w]; id[w] = ti;
        i = w;
    }
}

int32_t DL_EXPORT("dl_logits_prepare") dl_logits_prepare(const float *z, int32_t n, double inv_t,
                                                         const int32_t *over_ids, const float *over_vals,
                                                         int32_t n_over, float *scratch, int32_t top_n,
                                                         int32_t *top_ids, float *top_vals, double *out) {
    if (n_over > 0) { /* the penalty's values go into a copy; without them z is read in place */
        for (int32_t i = 0; i < n; i++) scratch[i] = z[i];
        for (int32_t j = 0; j < n_over; j++)
            if (over_ids[j] >= 0 && over_ids[j] < n) scratch[over_ids[j]] = over_vals[j];
        z = scratch;
    }

    /* exact top-N by a size-N min-heap, then heap-sorted into descending rank order */
    if (top_n > n) top_n = n;
    if (top_n < 0) top_n = 0;
    int32_t k = 0, i = 0;
    for (; i < top_n; i++) { /* the first N fill the heap */
        top_vals[k] = z[i];
        top_ids[k] = i;
        k++;
    }
    if (k == top_n && k > 0)
        for (int32_t h = k / 2 - 1; h >= 0; h--) sift_down(top_vals, top_ids, k, h);
    if (top_n > 0) {
        /* The rest, four at a time: most logits rank below the weakest kept one (the root), and a
         * four-lane compare skips them without a branch each. Every kept id is lower than i, so a
         * logit equal to the root never ranks above it: "v > root" is the whole test here, and
         * the heap ends exactly as the one-by-one loop (above()) would leave it. */
        int32_t n4 = top_n + ((n - top_n) & ~3);
        for (; i < n4; i += 4) {
            dl_f4 v = *(const dl_f4u *)(z + i);
            dl_i4 gt = v > dl_splat(top_vals[0]);
            if (!(gt[0] | gt[1] | gt[2] | gt[3])) continue;
            for (int32_t j = i; j < i + 4; j++) {
                if (above(z[j], j, top_vals[0], top_ids[0])) {
                    top_vals[0] = z[j];
                    top_ids[0] = j;
                    sift_down(top_vals, top_ids, k, 0);
                }
            }
        }
        for (; i < n; i++) {
            if (above(z[i], i, top_vals[0], top_ids[0])) {
                top_vals[0] = z[i];
                top_ids[0] = i;
                sift_down(top_vals, top_ids, k, 0);
            }
        }
    }
    if (k < top_n || k == n)
        for (int32_t h = k / 2 - 1; h >= 0; h--) sift_down(top_vals, top_ids, k, h);
    for (int32_t end = k - 1; end > 0; end--) { /* pop the weakest to the back: descending order */
        float tv = top_vals[0]; top_vals[0] = top_vals[end]; top_vals[end] = tv;
        int32_t ti = top_ids[0]; top_ids[0] = top_ids[end]; top_ids[end] = ti;
        sift_down(top_vals, top_ids, end, 0);
    }

    /* stats: M = max_i s_i, Z = sum e^(s_i - M), A = sum e^(s_i - M) (s_i - M), with s_i = z_i * inv_t.
     * Then p_i = e^(s_i - M) / Z and the entropy is H = ln Z - A / Z. */
    double M = 0.0, Z = 0.0, A = 0.0;
    if (inv_t > 0.0) {
        /* four lanes (dl_f4; the same bits in the SIMD and scalar builds), tail in scalar code */
        int32_t n4 = n & ~3, i = 0;
        dl_f4 mx4 = dl_splat(z[0]);
        for (; i < n4; i += 4) {
            dl_f4 v = *(const dl_f4u *)(z + i);
            mx4 = dl_select(v > mx4, v, mx4);
        }
        float mx = mx4[0];
        for (int k = 1; k < 4; k++) mx = mx4[k] > mx ? mx4[k] : mx;
        for (; i < n; i++) mx = z[i] > mx ? z[i] : mx;
        M = (double)mx * inv_t;
        /* float work in blocks of 256, each block's sums added up in double */
        float it = (float)inv_t, mf = (float)M;
        for (int32_t b0 = 0; b0 < n4; b0 += 256) {
            int32_t b1 = b0 + 256 < n4 ? b0 + 256 : n4;
            dl_f4 zb = dl_splat(0.0f), ab = zb;
            for (i = b0; i < b1; i += 4) {
                dl_f4 sv = *(const dl_f4u *)(z + i) * it - mf;
                dl_f4 e = dl_expf4(sv);
                zb += e;
                ab += e * sv;
            }
            Z += dl_hsum(zb);
            A += dl_hsum(ab);
        }
        for (i = n4; i < n; i++) {
            float sv = z[i] * it - mf, e = dl_expf(sv);
            Z += e;
            A += e * sv;
        }
    }
    /* one output block, so the host reads everything with one copy: 3 doubles, k ids, k values */
    out[0] = M;
    out[1] = Z;
    out[2] = A;
    int32_t *ids_out = (int32_t *)((uint8_t *)out + DL_PREPARE_HEADER_BYTES); /* after M, Z, A */
    float *vals_out = (float *)(ids_out + k);
    for (int32_t i = 0; i < k; i++) {
        ids_out[i] = top_ids[i];
        vals_out[i] = top_vals[i];
    }
    return k;
}

/* The panel's probability-by-rank curve: `sorted` holds all n logits in descending order (from
 * dl_logits_prepare with top_n = n), p_r = exp(sorted[r] * inv_t - M) / Z. For each requested
 * rank (1-based, ascending) writes p at that rank and the running mass up to it. Done here
 * because a temperature move needs all n exponentials again, which costs milliseconds in
 * Pyodide's Python and microseconds here. */
void DL_EXPORT("dl_rank_curve") dl_rank_curve(const float *sorted, int32_t n, double inv_t, double M, double Z,
                                              const int32_t *ranks, int32_t n_ranks, double *p_out,
                                              double *cum_out) {
    double acc = 0.0, invz = 1.0 / Z;
    int32_t j = 0;
    float it = (float)inv_t, mf = (float)M;
    for (int32_t i = 0; i < n && j < n_ranks; i++) {
        double p = (double)dl_expf(sorted[i] * it - mf) * invz;
        acc += p;
        while (j < n_ranks && ranks[j] == i + 1) {
            p_out[j] = p;
            cum_out[j] = acc;
            j++;
        }
    }
    for (; j < n_ranks; j++) p_out[j] = cum_out[j] = 0.0; /* ranks past n */
}

/* The top token, ties to the lower id: greedy decoding without a penalty, in one call. */
int32_t DL_EXPORT("dl_logits_argmax") dl_logits_argmax(const float *z, int32_t n) {
    int32_t best = 0;
    for (int32_t i = 1; i < n; i++)
        if (z[i] > z[best]) best = i;
    return best;
}

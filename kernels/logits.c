/*
 * logits.c: the O(vocab) reductions behind one sampler step (ABI in decodelab.h).
 *
 * The sampler's logic lives in Python (py_src/decodelab/sampler.py). Python cannot touch every
 * one of 4096 logits per token cheaply in Pyodide (converting them to Python floats alone takes
 * ~0.25 ms), so this function does the parts that must see all of them: with some logits
 * replaced (the repetition penalty's new values), it returns the exact top-N tokens and the
 * sums that give the softmax normaliser and the entropy at a temperature. For the generation
 * loop, dl_logits_sample goes on to draw the token itself wherever that provably gives the
 * Python sampler's token.
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

/* z with the penalty's values put in (over_ids[j] -> over_vals[j]): a copy in scratch, or z
 * itself, read in place, when nothing is overridden. */
static const float *with_overrides(const float *z, int32_t n, const int32_t *over_ids, const float *over_vals,
                                   int32_t n_over, float *scratch) {
    if (n_over <= 0) return z;
    for (int32_t i = 0; i < n; i++) scratch[i] = z[i];
    for (int32_t j = 0; j < n_over; j++)
        if (over_ids[j] >= 0 && over_ids[j] < n) scratch[over_ids[j]] = over_vals[j];
    return scratch;
}

/* The exact top-N of z (ties: the lower id first) in descending order, by a size-N min-heap that
 * is heap-sorted at the end. Returns k = min(top_n, n). */
static int32_t top_candidates(const float *z, int32_t n, int32_t top_n, int32_t *top_ids, float *top_vals) {
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
    return k;
}

/* With s_i = z_i * inv_t: M = max s_i, Z = sum e^(s_i - M) and, when A is not 0,
 * *A = sum e^(s_i - M) (s_i - M). Then p_i = e^(s_i - M) / Z and the entropy is H = ln Z - A / Z.
 * Every term and sum is in double (fastmath.h says why): two lanes over pairs of logits, the
 * lanes added last, a tail of one logit in the same operations, so all builds agree bit for bit.
 * Z comes out the same with or without A (its sums do not depend on A's). */
static void softmax_sums(const float *z, int32_t n, double inv_t, double *M_out, double *Z_out, double *A_out) {
    /* the maximum: four float lanes (exact, any order), tail in scalar code */
    int32_t n4 = n & ~3, i = 0;
    dl_f4 mx4 = dl_splat(z[0]);
    for (; i < n4; i += 4) {
        dl_f4 v = *(const dl_f4u *)(z + i);
        mx4 = dl_select(v > mx4, v, mx4);
    }
    float mx = mx4[0];
    for (int k = 1; k < 4; k++) mx = mx4[k] > mx ? mx4[k] : mx;
    for (; i < n; i++) mx = z[i] > mx ? z[i] : mx;
    double M = (double)mx * inv_t;
    dl_d2 zs = dl_dsplat(0.0), as = zs, it = dl_dsplat(inv_t), m2 = dl_dsplat(M);
    int32_t n2 = n & ~1;
    if (A_out) {
        for (i = 0; i < n2; i += 2) {
            dl_d2 sv = dl_load_f2(z + i) * it - m2;
            dl_d2 e = dl_expd2(sv);
            zs += e;
            as += e * sv;
        }
    } else {
        for (i = 0; i < n2; i += 2) zs += dl_expd2(dl_load_f2(z + i) * it - m2);
    }
    double Z = zs[0] + zs[1], A = as[0] + as[1];
    if (n2 < n) {
        double sv = (double)z[n2] * inv_t - M, e = dl_expd(sv);
        Z += e;
        A += e * sv;
    }
    *M_out = M;
    *Z_out = Z;
    if (A_out) *A_out = A;
}

/* The mean and the (population) standard deviation of the n values, in double: two passes (the
 * mean, then the squared distances from it), two lanes each, added last, so every build agrees. */
static void moments(const float *z, int32_t n, double *mean_out, double *std_out) {
    int32_t n2 = n & ~1, i;
    dl_d2 s2 = dl_dsplat(0.0);
    for (i = 0; i < n2; i += 2) s2 += dl_load_f2(z + i);
    double sum = s2[0] + s2[1];
    if (n2 < n) sum += (double)z[n2];
    double mean = sum / (double)n;
    dl_d2 m2 = dl_dsplat(mean), q2 = dl_dsplat(0.0);
    for (i = 0; i < n2; i += 2) {
        dl_d2 d = dl_load_f2(z + i) - m2;
        q2 += d * d;
    }
    double sq = q2[0] + q2[1];
    if (n2 < n) {
        double d = (double)z[n2] - mean;
        sq += d * d;
    }
    *mean_out = mean;
    *std_out = __builtin_sqrt(sq / (double)n);
}

int32_t DL_EXPORT("dl_logits_prepare") dl_logits_prepare(const float *z, int32_t n, double inv_t,
                                                         const int32_t *over_ids, const float *over_vals,
                                                         int32_t n_over, float *scratch, int32_t top_n,
                                                         int32_t *top_ids, float *top_vals, double *out) {
    z = with_overrides(z, n, over_ids, over_vals, n_over, scratch);
    int32_t k = top_candidates(z, n, top_n, top_ids, top_vals);
    double M = 0.0, Z = 0.0, A = 0.0, mean = 0.0, sd = 0.0;
    if (inv_t > 0.0) {
        softmax_sums(z, n, inv_t, &M, &Z, &A);
        moments(z, n, &mean, &sd);
    }
    /* one output block, so the host reads everything with one copy: 5 doubles, k ids, k values */
    out[0] = M;
    out[1] = Z;
    out[2] = A;
    out[3] = mean;
    out[4] = sd;
    int32_t *ids_out = (int32_t *)((uint8_t *)out + DL_PREPARE_HEADER_BYTES); /* after the doubles */
    float *vals_out = (float *)(ids_out + k);
    for (int32_t i = 0; i < k; i++) {
        ids_out[i] = top_ids[i];
        vals_out[i] = top_vals[i];
    }
    return k;
}

/* ---- one whole sampling step, where the kernel can prove Python's answer -------------------
 *
 * sampler.py's _filter and _draw compute p_i = math.exp(z_i * inv_t - M) / Z in double for the
 * candidates, their running sums left to right, and compare them with the cuts' targets. The
 * function below does the same operations in the same order; the only difference is the
 * exponential (exp_f64 here, the C library's behind math.exp there), each within a few units in
 * the last place of e^x. So every value here is within a known distance of Python's, and every
 * comparison that decides the token is checked with that distance as a margin: when one falls
 * inside it (a running sum within ~1e-13 of a target), the function gives up and Python
 * decides. Drawn tokens are therefore exactly the Python sampler's; it just costs one call
 * instead of a few dozen Python operations per token. */

/* e^x in double: x = k ln2 + r with |r| <= ln2/2 (ln2 split in two so that k * LN2_HI is exact),
 * e^r by its Taylor series to r^13 (the next term is below 1e-17 of the sum), then 2^k through
 * the exponent bits, in two steps where the result is subnormal. Within about one unit in the
 * last place of e^x (tests/test_sampler.py measures it against math.exp). */
static double exp_f64(double x) {
    if (x != x) return x;
    if (x < -745.2) return 0.0; /* below half the smallest subnormal */
    if (x > 709.78) return __builtin_inf();
    const double LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10;
    double kf = __builtin_rint(x * 1.44269504088896340736);
    double r = (x - kf * LN2_HI) - kf * LN2_LO;
    double t = 1.0 / 6227020800.0; /* 1/13! */
    t = 1.0 / 479001600.0 + r * t;
    t = 1.0 / 39916800.0 + r * t;
    t = 1.0 / 3628800.0 + r * t;
    t = 1.0 / 362880.0 + r * t;
    t = 1.0 / 40320.0 + r * t;
    t = 1.0 / 5040.0 + r * t;
    t = 1.0 / 720.0 + r * t;
    t = 1.0 / 120.0 + r * t;
    t = 1.0 / 24.0 + r * t;
    t = 1.0 / 6.0 + r * t;
    t = 0.5 + r * t;
    double e = 1.0 + (r + r * r * t); /* the 1 added last: the small part keeps its own bits */
    int32_t k = (int32_t)kf;
    union { uint64_t u; double d; } scale;
    if (k >= -1021) {
        scale.u = (uint64_t)(k + 1023) << 52;
        return e * scale.d;
    }
    scale.u = (uint64_t)(k + 1000 + 1023) << 52; /* exact, then one rounding into the subnormals */
    union { uint64_t u; double d; } tiny = {(uint64_t)(1023 - 1000) << 52};
    return (e * scale.d) * tiny.d;
}

double DL_EXPORT("dl_exp_f64") dl_exp_f64(double x) { return exp_f64(x); }

/* How far a value here may be from Python's (see above). A probability: relative DL_P_REL
 * (both exponentials are within ~3e-16 of e^x, the test allows 1e-15, this assumes 1e-13), and
 * an absolute 1e-300 for subnormal results. A running sum of j + 1 of them: its terms' errors
 * plus one rounding (at most 2.3e-16 for sums up to ~1) per addition. */
#define DL_P_REL 1e-13
static double prob_err(double p) { return DL_P_REL * p + 1e-300; }
static double cum_err(const double *cum, int32_t j) { return DL_P_REL * cum[j] + (double)(j + 1) * 1e-15; }
/* the product of a factor in [0, 1] and a value with error e: e plus one rounding */
static double product_err(double e, double v) { return e + 2.3e-16 * v; }

typedef struct {
    const int32_t *ids;
    const float *vals;
    double inv_t, M, Z;
    double *prob, *cum;
    int32_t have; /* prob and cum are filled for the first `have` candidates */
} Candidates;

/* fill prob and cum up to candidate m - 1, as sampler._Cut.grow does */
static void grow(Candidates *c, int32_t m) {
    for (int32_t i = c->have; i < m; i++) {
        double p = exp_f64((double)c->vals[i] * c->inv_t - c->M) / c->Z;
        c->prob[i] = p;
        c->cum[i] = i ? c->cum[i - 1] + p : p;
    }
    if (m > c->have) c->have = m;
}

/* The first index j < limit with cum[j] >= target (limit if none), as bisect_left finds it in
 * Python, or -1 when a comparison that decides it is too close to call. terr: the target's own
 * error. */
static int32_t first_reaching(Candidates *c, double target, double terr, int32_t limit) {
    int32_t j = 0;
    for (; j < limit; j++) {
        grow(c, j + 1);
        if (c->cum[j] >= target) break;
    }
    if (j > 0 && !(c->cum[j - 1] + cum_err(c->cum, j - 1) + terr < target)) return -1;
    if (j < limit && !(c->cum[j] - cum_err(c->cum, j) - terr >= target)) return -1;
    return j;
}

int32_t DL_EXPORT("dl_logits_sample") dl_logits_sample(const float *z, int32_t n, uint8_t *work, int32_t n_over,
                                                       double inv_t, int32_t top_k, double top_p, double min_p,
                                                       double u) {
    if (!(inv_t > 0.0) || !(u >= 0.0 && u < 1.0) || n <= 0) return DL_SAMPLE_UNDECIDED;
    int32_t *hint = (int32_t *)work;
    const int32_t *over_ids = (const int32_t *)(work + DL_SAMPLE_WORK_HEADER);
    const float *over_vals = (const float *)(over_ids + DL_SAMPLE_MAX_OVER);
    float *scratch = (float *)(over_vals + DL_SAMPLE_MAX_OVER), *top_vals = scratch + n;
    int32_t *top_ids = (int32_t *)(top_vals + n);
    double *prob = (double *)(top_ids + n + (n & 1)), *cum = prob + n; /* 8-byte aligned */
    if (n_over > DL_SAMPLE_MAX_OVER) return DL_SAMPLE_UNDECIDED;

    z = with_overrides(z, n, over_ids, over_vals, n_over, scratch);
    Candidates c = {top_ids, top_vals, inv_t, 0.0, 0.0, prob, cum, 0};
    softmax_sums(z, n, inv_t, &c.M, &c.Z, 0);
    if (!(c.Z > 0.5 && c.Z < 1e30)) return DL_SAMPLE_UNDECIDED; /* NaN or infinite logits (Z is about 1 or more) */
    int filtering = top_k > 0 || top_p < 1.0 || min_p > 0.0;
    /* how many candidates: top-k's k, else about as many as the last step needed (a guess that
     * only costs time when short: then four times as many, as in _filter) */
    int32_t fetch = top_k > 0 ? top_k : (*hint > 0 ? *hint : 64);
    if (fetch > n) fetch = n;
    int32_t keep;
    int complete;
    for (;;) {
        int32_t got = top_candidates(z, n, fetch, top_ids, top_vals);
        c.have = 0;
        complete = got == n;
        keep = got;
        int bounded = 0, more = 0;
        if (top_k > 0) { /* every survivor is among the k fetched */
            bounded = 1;
            if (top_k < keep) keep = top_k;
        }
        if (top_p < 1.0) { /* the shortest head reaching p of what is left; the crossing token stays */
            double target = top_p, terr = 0.0;
            if (bounded) {
                grow(&c, keep);
                target = top_p * cum[keep - 1];
                terr = product_err(cum_err(cum, keep - 1), target);
            }
            int32_t j = first_reaching(&c, target, terr, keep);
            if (j < 0) return DL_SAMPLE_UNDECIDED;
            if (j == keep) {
                more = !complete && !bounded;
            } else {
                bounded = 1;
                keep = j + 1;
            }
        }
        if (!more && min_p > 0.0) { /* p >= min_p * p_top; the probabilities fall with rank */
            grow(&c, 1);
            double thr = min_p * prob[0], terr = product_err(prob_err(prob[0]), thr);
            int32_t j = 0;
            for (; j < keep; j++) {
                grow(&c, j + 1);
                if (!(prob[j] >= thr)) break;
            }
            if (j > 0 && !(prob[j - 1] - prob_err(prob[j - 1]) - terr >= thr)) return DL_SAMPLE_UNDECIDED;
            if (j < keep && !(prob[j] + prob_err(prob[j]) + terr < thr)) return DL_SAMPLE_UNDECIDED;
            more = j == keep && keep == got && !complete && !bounded;
            keep = j > 1 ? j : 1;
        }
        if (!filtering && !complete) {
            /* no cut: every token survives; fetch until the draw's point u is covered */
            grow(&c, got);
            more = !(cum[got - 1] - cum_err(cum, got - 1) >= u);
        }
        if (!more) break;
        fetch = fetch * 4 < n ? fetch * 4 : n;
    }
    if (filtering) {
        int32_t h = 2 * keep > 64 ? 2 * keep : 64;
        if (top_k == 0) *hint = h < n ? h : n;
    }

    /* the draw: the first candidate whose running sum reaches u of the kept mass */
    grow(&c, keep);
    double mass = 1.0, merr = 0.0;
    if (filtering) {
        mass = cum[keep - 1];
        merr = cum_err(cum, keep - 1);
    } else if (complete) {
        /* Python draws against the sums' actual total when u is past it (its running sum and Z
         * add the same terms in another order, so they may differ in the last bits) */
        double e = cum_err(cum, keep - 1);
        if (u >= cum[keep - 1] + e) {
            mass = cum[keep - 1];
            merr = e;
        } else if (!(u < cum[keep - 1] - e)) {
            return DL_SAMPLE_UNDECIDED;
        }
    }
    double x = u * mass;
    int32_t j = first_reaching(&c, x, product_err(merr, x), keep - 1); /* at keep - 1 either way */
    if (j < 0) return DL_SAMPLE_UNDECIDED;
    return top_ids[j];
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
    for (int32_t i = 0; i < n && j < n_ranks; i++) {
        double p = dl_expd((double)sorted[i] * inv_t - M) * invz; /* in double, as Z is */
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

/*
 * model.c: the GPT forward pass over an int8 bundle, with a KV cache (ABI in decodelab.h).
 *
 * Mirrors py_src/decodelab/training/model.py: pre-LayerNorm blocks, learned positions,
 * bias-free linear layers, GELU (tanh form), tied input/output embedding. Every matrix is int8
 * with one float32 scale per row and goes through dl_matmat_* from matvec.c.
 *
 * One routine, forward_block, runs n consecutive tokens through the network in one pass over the
 * weights and appends their keys and values to the cache. Decoding one token is n = 1; a
 * prompt prefill, a speculative verification and the no-cache recomputation are larger n.
 *
 * Activation path: with fast = 1 the input of every matrix product is rounded to integers in
 * [-63, 63] (one scale per vector, DL_ACT_QMAX) and the products run on int8 weights x those
 * integers -> int32, exactly; with fast = 0 the inputs stay float32. The fast path is the
 * default: +0.0008 nats/token on 60 validation stories and ~1.7x the greedy tokens/s in
 * Chromium (python build.py bench generate, "activation path"; README "Decisions").
 */
#include "decodelab.h"
#include "fastmath.h"

/* ---- small float helpers (freestanding: no libm) ----------------------------------------- */

static float dl_tanhf(float x) {
    if (x > 9.0f) return 1.0f;
    if (x < -9.0f) return -1.0f;
    float e = dl_expf(2.0f * x);
    return (e - 1.0f) / (e + 1.0f);
}

static float gelu_tanh(float x) {
    return 0.5f * x * (1.0f + dl_tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

/* gelu_tanh on four lanes, lane for lane the same operations (so the same bits) */
static dl_f4 gelu_tanh4(dl_f4 x) {
    dl_f4 u = 0.7978845608f * (x + 0.044715f * x * x * x);
    dl_f4 e = dl_expf4(2.0f * u);
    dl_f4 t = (e - 1.0f) / (e + 1.0f);
    t = dl_select(u > dl_splat(9.0f), dl_splat(1.0f), t);
    t = dl_select(u < dl_splat(-9.0f), dl_splat(-1.0f), t);
    return 0.5f * x * (1.0f + t);
}

static void gelu_all(float *x, int32_t n) {
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) *(dl_f4u *)(x + i) = gelu_tanh4(*(const dl_f4u *)(x + i));
    for (; i < n; i++) x[i] = gelu_tanh(x[i]);
}

static void copy_bytes(void *dst, const void *src, uint32_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (uint32_t i = 0; i < n; i++) d[i] = s[i];
}

/* ---- plain structs: config, weights, run state ------------------------------------------ */

/* The bundle's header and tensor table (BundleHeader, TensorEntry) come from dl_spec.h, generated
 * from py_src/decodelab/spec.py with the Python reader's struct formats. */
#define BUNDLE_MIN_LEN (sizeof(BundleHeader) + 4) /* a header and the checksum */

/* The shape of the network, from the header. */
typedef struct {
    int32_t vocab, context, d, n_layers, n_heads, d_ff, eot;
} Config;

/* One int8 matrix with a float32 scale per row. */
typedef struct {
    int8_t *q;       /* rows x cols, the weights in use (re-quantization writes here) */
    float *s;        /* one scale per row */
    const int8_t *q0;/* the shipped weights inside the bundle, for restore and re-quantization */
    const float *s0;
    int32_t *qsum;   /* sum of each row of q (the relaxed-SIMD fast path needs them; kept in step with q) */
    int32_t rows, cols;
} QMat;

typedef struct {
    const float *ln1_w, *ln1_b, *ln2_w, *ln2_b;
    QMat qkv, proj, fc, fc2;
} Layer;

#define MAX_LAYERS 32

/* Everything the file gives: read once at load, changed only by re-quantization. */
typedef struct {
    QMat wte, wpe;             /* token embedding (also the tied output matrix), positions */
    Layer layer[MAX_LAYERS];
    const float *lnf_w, *lnf_b;
} Weights;

/* Scratch for one block of up to `context` tokens, the KV cache and its fill level. */
typedef struct {
    float *x;                  /* residual stream [n][d] */
    float *h;                  /* layer-norm output, attention projection, MLP output [n][d] */
    float *qkv;                /* queries, keys, values of the block [n][3d] */
    float *att;                /* attention output before its projection [n][d] */
    float *ff;                 /* MLP hidden [n][d_ff] (re-quantization's scratch too) */
    float *scores;             /* one head's attention scores over the cache [context + 4] */
    int8_t *xq;                /* the fast path's rounded inputs [n][widest] */
    float *xs;                 /* and their scales [n] */
    float *logits;             /* [DL_MAX_BLOCK_LOGITS][vocab] */
    float *key_cache, *value_cache; /* [layer][head][position][head_dim]: each head reads one contiguous block */
    int32_t pos;               /* tokens already in the cache */
} RunState;

struct Model {
    Config cfg;
    Weights w;
    RunState s;
    int32_t fast;              /* 1: 7-bit activations (fast path), 0: float32 activations */
    double passes, macs;       /* counters since load (doubles: exact to 2^53, and JS-friendly) */
};

static const char *last_error = "";

const char *DL_EXPORT("dl_last_error") dl_last_error(void) { return last_error; }

/* ---- bundle parsing (layout documented in py_src/decodelab/bundle.py) ------------------------- */

static int name_is(const char *entry, const char *want) {
    for (int i = 0; i < 24; i++) {
        if (entry[i] != want[i]) return 0;
        if (entry[i] == 0) return 1;
    }
    return 1;
}

static void layer_name(char *out, int32_t l, const char *suffix) {
    int i = 0;
    out[i++] = 'h';
    if (l >= 10) out[i++] = (char)('0' + l / 10);
    out[i++] = (char)('0' + l % 10);
    out[i++] = '.';
    while (*suffix) out[i++] = *suffix++;
    out[i] = 0;
}

/* Find tensor `name`, check its kind and shape, return its entry or 0 (with last_error set). */
static const TensorEntry *find_tensor(const uint8_t *b, uint32_t len, const char *name, uint32_t dtype, uint32_t rows,
                                      uint32_t cols) {
    const BundleHeader *hd = (const BundleHeader *)b;
    for (uint32_t i = 0; i < hd->n_tensors; i++) {
        if (hd->table_offset + sizeof(TensorEntry) * (i + 1) > len) break;
        const TensorEntry *e = (const TensorEntry *)(b + hd->table_offset) + i;
        if (!name_is(e->name, name)) continue;
        uint32_t bytes = rows * cols * (dtype == DL_WEIGHTS_I8_ROW ? 1 : 4);
        if (e->dtype != dtype || e->rows != rows || e->cols != cols) {
            last_error = "model file: a tensor has the wrong type or shape";
            return 0;
        }
        if (e->data_offset + bytes > len || (dtype == DL_WEIGHTS_I8_ROW && e->scale_offset + 4 * rows > len) ||
            (e->data_offset & 3) || (e->scale_offset & 3)) {
            last_error = "model file: a tensor points outside the file";
            return 0;
        }
        return e;
    }
    last_error = "model file: a tensor is missing";
    return 0;
}

static int bind_matrix(QMat *m, const uint8_t *b, uint32_t len, const char *name, int32_t rows, int32_t cols) {
    const TensorEntry *e = find_tensor(b, len, name, DL_WEIGHTS_I8_ROW, (uint32_t)rows, (uint32_t)cols);
    if (!e) return 0;
    m->rows = rows;
    m->cols = cols;
    m->q0 = (const int8_t *)(b + e->data_offset);
    m->s0 = (const float *)(b + e->scale_offset);
    m->q = dl_alloc((uint32_t)(rows * cols));
    m->s = dl_alloc((uint32_t)(4 * rows));
    m->qsum = dl_alloc((uint32_t)(4 * rows));
    if (!m->q || !m->s || !m->qsum) {
        last_error = "out of memory for the weights";
        return 0;
    }
    copy_bytes(m->q, m->q0, (uint32_t)(rows * cols));
    copy_bytes(m->s, m->s0, (uint32_t)(4 * rows));
    dl_row_sums(m->q, rows, cols, m->qsum);
    return 1;
}

static const float *bind_vector(const uint8_t *b, uint32_t len, const char *name, int32_t n) {
    const TensorEntry *e = find_tensor(b, len, name, DL_WEIGHTS_F32, 1, (uint32_t)n);
    return e ? (const float *)(b + e->data_offset) : 0;
}

static int bind_weights(Weights *w, const Config *c, const uint8_t *b, uint32_t len) {
    int32_t d = c->d;
    if (!bind_matrix(&w->wte, b, len, "wte", c->vocab, d) || !bind_matrix(&w->wpe, b, len, "wpe", c->context, d))
        return 0;
    char name[24];
    for (int32_t l = 0; l < c->n_layers; l++) {
        Layer *L = &w->layer[l];
        layer_name(name, l, "ln1.w"); L->ln1_w = bind_vector(b, len, name, d);
        layer_name(name, l, "ln1.b"); L->ln1_b = bind_vector(b, len, name, d);
        layer_name(name, l, "ln2.w"); L->ln2_w = bind_vector(b, len, name, d);
        layer_name(name, l, "ln2.b"); L->ln2_b = bind_vector(b, len, name, d);
        if (!L->ln1_w || !L->ln1_b || !L->ln2_w || !L->ln2_b) return 0;
        layer_name(name, l, "qkv");
        if (!bind_matrix(&L->qkv, b, len, name, 3 * d, d)) return 0;
        layer_name(name, l, "proj");
        if (!bind_matrix(&L->proj, b, len, name, d, d)) return 0;
        layer_name(name, l, "fc");
        if (!bind_matrix(&L->fc, b, len, name, c->d_ff, d)) return 0;
        layer_name(name, l, "fc2");
        if (!bind_matrix(&L->fc2, b, len, name, d, c->d_ff)) return 0;
    }
    w->lnf_w = bind_vector(b, len, "lnf.w", d);
    w->lnf_b = bind_vector(b, len, "lnf.b", d);
    return w->lnf_w && w->lnf_b;
}

static int alloc_run_state(RunState *s, const Config *c) {
    uint32_t T = (uint32_t)c->context, d = (uint32_t)c->d;
    uint32_t widest = (uint32_t)(c->d_ff > 3 * c->d ? c->d_ff : 3 * c->d);
    s->x = dl_alloc(4 * T * d);
    s->h = dl_alloc(4 * T * d);
    s->qkv = dl_alloc(4 * T * 3 * d);
    s->att = dl_alloc(4 * T * d);
    s->ff = dl_alloc(4 * T * (uint32_t)c->d_ff);
    s->scores = dl_alloc(4 * (T + 4)); /* + padding to a multiple of 4 */
    s->xq = dl_alloc(T * widest);
    s->xs = dl_alloc(4 * T);
    s->logits = dl_alloc(4u * DL_MAX_BLOCK_LOGITS * (uint32_t)c->vocab);
    s->key_cache = dl_alloc(4u * (uint32_t)c->n_layers * T * d);
    s->value_cache = dl_alloc(4u * (uint32_t)c->n_layers * T * d);
    s->pos = 0;
    return s->x && s->h && s->qkv && s->att && s->ff && s->scores && s->xq && s->xs && s->logits && s->key_cache &&
           s->value_cache;
}

/* The bundle must stay in kernel memory while the model lives: the shipped weights are read
 * from it on restore. The Python loader has already verified its checksum. */
Model *DL_EXPORT("dl_model_load") dl_model_load(const uint8_t *b, uint32_t len) {
    last_error = "";
    const BundleHeader *hd = (const BundleHeader *)b;
    if (len < BUNDLE_MIN_LEN || hd->magic[0] != 'D' || hd->magic[1] != 'L' || hd->magic[2] != 'M' || hd->magic[3] != 1) {
        last_error = "not a decodelab model file (bad magic)";
        return 0;
    }
    if (hd->version != DL_BUNDLE_VERSION) {
        last_error = "unsupported model file version";
        return 0;
    }
    if (hd->total_len != len) {
        last_error = "model file length does not match its header (truncated?)";
        return 0;
    }
    Model *m = dl_alloc(sizeof(Model));
    if (!m) return 0;
    Config *c = &m->cfg;
    *c = (Config){(int32_t)hd->vocab, (int32_t)hd->context, (int32_t)hd->d_model, (int32_t)hd->n_layers,
                  (int32_t)hd->n_heads, (int32_t)hd->d_ff, (int32_t)hd->eot};
    if (c->n_layers < 1 || c->n_layers > MAX_LAYERS || c->n_heads < 1 || c->d % c->n_heads || (c->d / c->n_heads) % 4 ||
        c->context < 1 || c->context > 4096 || c->vocab < 2 || c->eot >= c->vocab) {
        last_error = "model file: configuration out of range";
        return 0;
    }
    if (!bind_weights(&m->w, c, b, len)) return 0;
    if (!alloc_run_state(&m->s, c)) {
        last_error = "out of memory for the run state";
        return 0;
    }
    m->fast = 1;
    return m;
}

/* ---- the forward pass ------------------------------------------------------------------------ */

/* Y[n][rows] = W X[n][cols], through the chosen activation path. */
static void linear(Model *m, const QMat *w, const float *X, float *Y, int32_t n) {
    RunState *s = &m->s;
    if (m->fast) {
        /* round each input vector to integers in [-63, 63] with its own scale, then int8 x int8 */
        for (int32_t t = 0; t < n; t++) s->xs[t] = dl_quantize_x(X + t * w->cols, s->xq + t * w->cols, w->cols);
        dl_matmat_i8x(w->q, w->s, s->xq, s->xs, Y, w->rows, w->cols, n, w->qsum);
    } else {
        dl_matmat_f32x(w->q, w->s, X, Y, w->rows, w->cols, n);
    }
    m->macs += (double)w->rows * w->cols * n;
}

/* Sums on four lanes (dl_f4) so the SIMD build vectorizes them; d is a multiple of 4 (checked at
 * load), and every build adds in the same order. */
static void layer_norm(float *out, const float *x, const float *w, const float *b, int32_t d) {
    dl_f4 s4 = dl_splat(0.0f);
    for (int32_t i = 0; i < d; i += 4) s4 += *(const dl_f4u *)(x + i);
    float mean = dl_hsum(s4) / (float)d;
    dl_f4 v4 = dl_splat(0.0f);
    for (int32_t i = 0; i < d; i += 4) {
        dl_f4 c = *(const dl_f4u *)(x + i) - mean;
        v4 += c * c;
    }
    float inv = 1.0f / __builtin_sqrtf(dl_hsum(v4) / (float)d + 1e-5f);
    for (int32_t i = 0; i < d; i += 4)
        *(dl_f4u *)(out + i) = (*(const dl_f4u *)(x + i) - mean) * inv * *(const dl_f4u *)(w + i) + *(const dl_f4u *)(b + i);
}

static void copy_floats(float *dst, const float *src, int32_t n) { /* n a multiple of 4 */
    for (int32_t i = 0; i < n; i += 4) *(dl_f4u *)(dst + i) = *(const dl_f4u *)(src + i);
}

/* Dequantized row of an int8 matrix (the embedding lookups). */
static void add_row(float *out, const QMat *w, int32_t r) {
    const int8_t *q = w->q + r * w->cols;
    float s = w->s[r];
    for (int32_t i = 0; i < w->cols; i++) out[i] += s * (float)q[i];
}

/* q . k over one head, four lanes of partial sums then dl_hsum: one order in every build. */
static float head_dot(const float *q, const float *k, int32_t hd) {
    dl_f4 acc = dl_splat(0.0f);
    for (int32_t i = 0; i < hd; i += 4) acc += *(const dl_f4u *)(q + i) * *(const dl_f4u *)(k + i);
    return dl_hsum(acc);
}

/* Attention of block token t (absolute position p) over cache positions 0..p, all heads. Two
 * versions give the same bits: attend_plain says what is computed, one key and then one output
 * at a time; attend_unrolled, the one the page runs, does four keys and sixteen outputs at once so
 * that their sums run in parallel. Every sum is taken in the same order in both (head_dot's four
 * lanes, then the positions in order), and the shared softmax is one function, so the outputs
 * agree exactly: tests/test_kernel.py builds the kernel with -DDL_PLAIN_ATTEND=1 and compares. */
#ifndef DL_PLAIN_ATTEND
#define DL_PLAIN_ATTEND 0
#endif

/* The head's keys or values in the cache: [context][head_dim] for layer l, head h. */
static const float *head_cache(const Model *m, const float *cache, int32_t l, int32_t h) {
    const Config *c = &m->cfg;
    int32_t hd = c->d / c->n_heads;
    return cache + ((uint32_t)(l * c->n_heads + h) * c->context) * hd;
}

/* Softmax of sc[0..n-1] in place, unnormalised: sc[j] = e^(sc[j] - max); returns 1 / their sum.
 * The largest score is taken out first so e^x cannot overflow. Runs on four lanes (dl_expf4):
 * sc has room for n rounded up to 4, and the padding's e^x is exactly 0. */
static float softmax_unnormalised(float *sc, int32_t n) {
    float mx = sc[0];
    for (int32_t j = 1; j < n; j++) mx = sc[j] > mx ? sc[j] : mx;
    int32_t n4 = (n + 3) & ~3;
    for (int32_t j = n; j < n4; j++) sc[j] = -3.0e38f;
    dl_f4 sum4 = dl_splat(0.0f);
    for (int32_t j = 0; j < n4; j += 4) {
        dl_f4 e = dl_expf4(*(dl_f4u *)(sc + j) - mx);
        *(dl_f4u *)(sc + j) = e;
        sum4 += e;
    }
    return 1.0f / dl_hsum(sum4);
}

/* The reference: scores q . k / sqrt(head_dim) for every cached position (the causal mask is
 * simply that later positions are not in the cache yet), their softmax, the values weighted by it. */
static void attend_plain(Model *m, int32_t l, int32_t t, int32_t p) {
    const Config *c = &m->cfg;
    RunState *s = &m->s;
    int32_t d = c->d, hd = d / c->n_heads, n = p + 1;
    float scale = 1.0f / __builtin_sqrtf((float)hd), *sc = s->scores;
    for (int32_t h = 0; h < c->n_heads; h++) {
        const float *Kh = head_cache(m, s->key_cache, l, h), *Vh = head_cache(m, s->value_cache, l, h);
        const float *qh = s->qkv + t * 3 * d + h * hd;
        float *oh = s->att + t * d + h * hd;
        for (int32_t j = 0; j < n; j++) sc[j] = head_dot(qh, Kh + j * hd, hd) * scale;
        float inv = softmax_unnormalised(sc, n);
        for (int32_t i = 0; i < hd; i++) {
            float o = 0.0f;
            for (int32_t j = 0; j < n; j++) {
                float a = sc[j] * inv;
                if (a < 1e-20f) continue; /* negligible, and its products would be denormal */
                o += a * Vh[j * hd + i];
            }
            oh[i] = o;
        }
    }
}

/* The same, fast: on four lanes (dl_f4), so the SIMD build does it with f32x4 and the other
 * builds get the same bits from scalar code. The head size must be a multiple of 4 (checked at load). */
static void attend_unrolled(Model *m, int32_t l, int32_t t, int32_t p) {
    const Config *c = &m->cfg;
    RunState *s = &m->s;
    int32_t d = c->d, hd = d / c->n_heads, n = p + 1;
    float scale = 1.0f / __builtin_sqrtf((float)hd), *sc = s->scores;
    for (int32_t h = 0; h < c->n_heads; h++) {
        const float *Kh = head_cache(m, s->key_cache, l, h), *Vh = head_cache(m, s->value_cache, l, h);
        const float *qh = s->qkv + t * 3 * d + h * hd;
        float *oh = s->att + t * d + h * hd;
        /* scores, four keys at a time: four independent chains of adds */
        int32_t j = 0;
        for (; j + 4 <= n; j += 4) {
            const float *k0 = Kh + j * hd, *k1 = k0 + hd, *k2 = k1 + hd, *k3 = k2 + hd;
            dl_f4 a0 = dl_splat(0.0f), a1 = a0, a2 = a0, a3 = a0;
            for (int32_t i = 0; i < hd; i += 4) {
                dl_f4 qv = *(const dl_f4u *)(qh + i);
                a0 += qv * *(const dl_f4u *)(k0 + i);
                a1 += qv * *(const dl_f4u *)(k1 + i);
                a2 += qv * *(const dl_f4u *)(k2 + i);
                a3 += qv * *(const dl_f4u *)(k3 + i);
            }
            sc[j] = dl_hsum(a0) * scale;
            sc[j + 1] = dl_hsum(a1) * scale;
            sc[j + 2] = dl_hsum(a2) * scale;
            sc[j + 3] = dl_hsum(a3) * scale;
        }
        for (; j < n; j++) sc[j] = head_dot(qh, Kh + j * hd, hd) * scale;
        float inv = softmax_unnormalised(sc, n);
        /* the weighted values, 16 outputs at a time kept in four registers */
        for (int32_t i0 = 0; i0 < hd; i0 += 16) {
            if (i0 + 16 <= hd) {
                dl_f4 o0 = dl_splat(0.0f), o1 = o0, o2 = o0, o3 = o0;
                for (j = 0; j < n; j++) {
                    float a = sc[j] * inv;
                    if (a < 1e-20f) continue;
                    const float *v = Vh + j * hd + i0;
                    o0 += a * *(const dl_f4u *)v;
                    o1 += a * *(const dl_f4u *)(v + 4);
                    o2 += a * *(const dl_f4u *)(v + 8);
                    o3 += a * *(const dl_f4u *)(v + 12);
                }
                *(dl_f4u *)(oh + i0) = o0;
                *(dl_f4u *)(oh + i0 + 4) = o1;
                *(dl_f4u *)(oh + i0 + 8) = o2;
                *(dl_f4u *)(oh + i0 + 12) = o3;
            } else { /* a head size not a multiple of 16: the rest four at a time */
                for (int32_t i = i0; i < hd; i += 4) {
                    dl_f4 o = dl_splat(0.0f);
                    for (j = 0; j < n; j++) {
                        float a = sc[j] * inv;
                        if (a < 1e-20f) continue;
                        o += a * *(const dl_f4u *)(Vh + j * hd + i);
                    }
                    *(dl_f4u *)(oh + i) = o;
                }
            }
        }
    }
}

static void attend(Model *m, int32_t l, int32_t t, int32_t p) {
    if (DL_PLAIN_ATTEND) attend_plain(m, l, t, p);
    else attend_unrolled(m, l, t, p);
    m->macs += 2.0 * (double)(p + 1) * m->cfg.d;
}

/* Run n tokens at positions pos..pos+n-1 through the whole network in one pass over the
 * weights; their keys and values join the cache, and the logits of the last `n_logits` of them
 * go to s->logits. */
static int32_t forward_block(Model *m, const int32_t *tokens, int32_t n, int32_t n_logits) {
    const Config *c = &m->cfg;
    const Weights *w = &m->w;
    RunState *s = &m->s;
    int32_t d = c->d, H = c->n_heads, hd = d / H;
    if (n < 1 || s->pos + n > c->context) {
        last_error = "block does not fit in the context";
        return 0;
    }
    if (n_logits < 1 || n_logits > n || n_logits > DL_MAX_BLOCK_LOGITS) {
        last_error = "too many logit rows requested";
        return 0;
    }
    /* 1. embeddings: x = token row of wte + position row of wpe */
    for (int32_t t = 0; t < n; t++) {
        if (tokens[t] < 0 || tokens[t] >= c->vocab) {
            last_error = "token id out of range";
            return 0;
        }
        float *x = s->x + t * d;
        for (int32_t i = 0; i < d; i++) x[i] = 0.0f;
        add_row(x, &w->wte, tokens[t]);
        add_row(x, &w->wpe, s->pos + t);
    }
    for (int32_t l = 0; l < c->n_layers; l++) {
        const Layer *L = &w->layer[l];
        /* 2. attention block: h = LN1(x); q, k, v = W_qkv h */
        for (int32_t t = 0; t < n; t++) layer_norm(s->h + t * d, s->x + t * d, L->ln1_w, L->ln1_b, d);
        linear(m, &L->qkv, s->h, s->qkv, n);
        /* 3. this block's keys and values go into the cache at their positions, head by head */
        for (int32_t t = 0; t < n; t++)
            for (int32_t h = 0; h < H; h++) {
                uint32_t slot = ((uint32_t)(l * H + h) * c->context + (uint32_t)(s->pos + t)) * hd;
                copy_floats(s->key_cache + slot, s->qkv + t * 3 * d + d + h * hd, hd);
                copy_floats(s->value_cache + slot, s->qkv + t * 3 * d + 2 * d + h * hd, hd);
            }
        /* 4. each token attends to every cached position up to its own */
        for (int32_t t = 0; t < n; t++) attend(m, l, t, s->pos + t);
        /* 5. x += W_proj att (the residual connection) */
        linear(m, &L->proj, s->att, s->h, n);
        for (int32_t i = 0; i < n * d; i++) s->x[i] += s->h[i];
        /* 6. MLP block: x += W_fc2 GELU(W_fc LN2(x)) */
        for (int32_t t = 0; t < n; t++) layer_norm(s->h + t * d, s->x + t * d, L->ln2_w, L->ln2_b, d);
        linear(m, &L->fc, s->h, s->ff, n);
        gelu_all(s->ff, n * c->d_ff);
        linear(m, &L->fc2, s->ff, s->h, n);
        for (int32_t i = 0; i < n * d; i++) s->x[i] += s->h[i];
    }
    /* 7. final layer norm, then logits = wte LN_f(x) (the output matrix is the tied embedding),
     * for the last n_logits tokens only */
    int32_t first = n - n_logits;
    for (int32_t t = first; t < n; t++) layer_norm(s->h + (t - first) * d, s->x + t * d, w->lnf_w, w->lnf_b, d);
    linear(m, &w->wte, s->h, s->logits, n_logits);
    s->pos += n;
    m->passes += n;
    return 1;
}

/* ---- exported API ----------------------------------------------------------------------------- */

/* out[0..DL_CONFIG_FIELDS-1] = vocab, context, d_model, n_layers, n_heads, d_ff, eot */
void DL_EXPORT("dl_model_config") dl_model_config(const Model *m, int32_t *out) {
    const Config *c = &m->cfg;
    out[0] = c->vocab; out[1] = c->context; out[2] = c->d; out[3] = c->n_layers;
    out[4] = c->n_heads; out[5] = c->d_ff; out[6] = c->eot;
}

void DL_EXPORT("dl_model_reset") dl_model_reset(Model *m) { m->s.pos = 0; }

/* Forget the last k cached positions (speculative decoding rolls back rejected drafts). */
void DL_EXPORT("dl_model_rewind") dl_model_rewind(Model *m, int32_t k) {
    m->s.pos = k >= m->s.pos ? 0 : m->s.pos - k;
}

float *DL_EXPORT("dl_model_logits") dl_model_logits(const Model *m) { return m->s.logits; }

const float *DL_EXPORT("dl_model_cache") dl_model_cache(const Model *m, int32_t values) {
    return values ? m->s.value_cache : m->s.key_cache;
}

float *DL_EXPORT("dl_model_step") dl_model_step(Model *m, int32_t token) {
    return forward_block(m, &token, 1, 1) ? m->s.logits : 0;
}

float *DL_EXPORT("dl_model_block") dl_model_block(Model *m, const int32_t *tokens, int32_t n, int32_t n_logits) {
    return forward_block(m, tokens, n, n_logits) ? m->s.logits : 0;
}

/* No cache: forget everything and recompute all n tokens (the KV-cache race's slow lane). */
float *DL_EXPORT("dl_model_recompute") dl_model_recompute(Model *m, const int32_t *tokens, int32_t n) {
    m->s.pos = 0;
    return forward_block(m, tokens, n, 1) ? m->s.logits : 0;
}

void DL_EXPORT("dl_model_set_fast") dl_model_set_fast(Model *m, int32_t fast) { m->fast = fast ? 1 : 0; }

double DL_EXPORT("dl_model_passes") dl_model_passes(const Model *m) { return m->passes; }
double DL_EXPORT("dl_model_macs") dl_model_macs(const Model *m) { return m->macs; }

/* ---- re-quantization (mirrored by py_src/decodelab/quant.py: requantize_reference) --------------- */

static float absf(float v) { return v < 0 ? -v : v; }

/* The loops below run on four lanes (dl_f4, fastmath.h): per weight they do exactly the float32
 * operations of the reference, so the bytes written are the same in every build and equal
 * quant.py's. Columns past the last multiple of 4 go through the same steps one at a time. */

/* largest |s0 * q0[c]| over columns c0..c1-1 */
static float span_amax(const int8_t *q0, float s0, int32_t c0, int32_t c1) {
    dl_f4 m4 = dl_splat(0.0f);
    int32_t c = c0;
    for (; c + 4 <= c1; c += 4) m4 = dl_max4(dl_abs4(s0 * dl_load_i8x4(q0 + c)), m4);
    float m = dl_hmax(m4);
    for (; c < c1; c++) {
        float a = absf(s0 * (float)q0[c]);
        if (a > m) m = a;
    }
    return m;
}

/* q[c] = clamp(round(s0 * q0[c] / sb), qmax) * mult for columns c0..c1-1 */
static void span_quantize(int8_t *q, const int8_t *q0, float s0, float sb, int32_t qmax, int32_t mult, int32_t c0,
                          int32_t c1) {
    int32_t c = c0;
    float fq = (float)qmax, fm = (float)mult;
    for (; c + 4 <= c1; c += 4)
        dl_store_i8x4(q + c, dl_clamp4(dl_round_away4((s0 * dl_load_i8x4(q0 + c)) / sb), fq) * fm);
    for (; c < c1; c++) {
        int32_t qb = dl_round_away((s0 * (float)q0[c]) / sb);
        qb = qb > qmax ? qmax : (qb < -qmax ? -qmax : qb);
        q[c] = (int8_t)(qb * mult);
    }
}

/* Groups of DL_SCHEME_GROUP_COLS columns: v[c] = sg * clamp(round(s0 * q0[c] / sg), qmax) with sg = (group's
 * largest |w|) / qmax, or 0 for an all-zero group. Returns the row's largest |v|. */
static float row_groups(float *v, const int8_t *q0, float s0, int32_t qmax, int32_t cols) {
    float row_amax = 0.0f, fq = (float)qmax;
    for (int32_t g0 = 0; g0 < cols; g0 += DL_SCHEME_GROUP_COLS) {
        int32_t g1 = g0 + DL_SCHEME_GROUP_COLS < cols ? g0 + DL_SCHEME_GROUP_COLS : cols, c = g0;
        float ga = span_amax(q0, s0, g0, g1);
        if (ga == 0.0f) {
            for (; c < g1; c++) v[c] = 0.0f;
            continue;
        }
        float sg = ga / fq;
        dl_f4 m4 = dl_splat(0.0f);
        for (; c + 4 <= g1; c += 4) {
            dl_f4 vv = sg * dl_clamp4(dl_round_away4((s0 * dl_load_i8x4(q0 + c)) / sg), fq);
            *(dl_f4u *)(v + c) = vv;
            m4 = dl_max4(dl_abs4(vv), m4);
        }
        float m = dl_hmax(m4);
        for (; c < g1; c++) {
            int32_t qi = dl_round_away((s0 * (float)q0[c]) / sg);
            qi = qi > qmax ? qmax : (qi < -qmax ? -qmax : qi);
            v[c] = sg * (float)qi;
            if (absf(v[c]) > m) m = absf(v[c]);
        }
        if (m > row_amax) row_amax = m;
    }
    return row_amax;
}

static void requant_matrix(QMat *w, int32_t bits, int32_t scheme, float *tmp) {
    int32_t qmax = (1 << (bits - 1)) - 1, mult = 127 / qmax, rows = w->rows, cols = w->cols;
    float mat_amax = 0.0f;
    if (scheme == DL_SCHEME_MATRIX)
        for (int32_t r = 0; r < rows; r++) {
            float a = span_amax(w->q0 + r * cols, w->s0[r], 0, cols);
            if (a > mat_amax) mat_amax = a;
        }
    for (int32_t r = 0; r < rows; r++) {
        const int8_t *q0 = w->q0 + r * cols;
        int8_t *q = w->q + r * cols;
        float s0 = w->s0[r];
        if (scheme == DL_SCHEME_GROUP32) {
            /* the groups have different scales, so the row is carried back at 8 bits with one
             * row scale: a second rounding of the b-bit values in tmp */
            float row_amax = row_groups(tmp, q0, s0, qmax, cols);
            if (row_amax == 0.0f) {
                for (int32_t c = 0; c < cols; c++) q[c] = 0;
                w->s[r] = 0.0f;
                continue;
            }
            float s8 = row_amax / 127.0f;
            int32_t c = 0;
            for (; c + 4 <= cols; c += 4)
                dl_store_i8x4(q + c, dl_clamp4(dl_round_away4(*(const dl_f4u *)(tmp + c) / s8), 127.0f));
            for (; c < cols; c++) {
                int32_t q8 = dl_round_away(tmp[c] / s8);
                q[c] = (int8_t)(q8 > 127 ? 127 : (q8 < -127 ? -127 : q8));
            }
            w->s[r] = s8;
            continue;
        }
        float amax = scheme == DL_SCHEME_ROW ? span_amax(q0, s0, 0, cols) : mat_amax;
        if (amax == 0.0f) {
            for (int32_t c = 0; c < cols; c++) q[c] = 0;
            w->s[r] = 0.0f;
            continue;
        }
        float sb = amax / (float)qmax;
        span_quantize(q, q0, s0, sb, qmax, mult, 0, cols);
        w->s[r] = sb / (float)mult;
    }
}

static int32_t each_matrix(Model *m, int32_t bits, int32_t scheme, int restore) {
    QMat *all[2 + 4 * MAX_LAYERS];
    int32_t n = 0;
    all[n++] = &m->w.wte;
    all[n++] = &m->w.wpe;
    for (int32_t l = 0; l < m->cfg.n_layers; l++) {
        all[n++] = &m->w.layer[l].qkv;
        all[n++] = &m->w.layer[l].proj;
        all[n++] = &m->w.layer[l].fc;
        all[n++] = &m->w.layer[l].fc2;
    }
    for (int32_t i = 0; i < n; i++) {
        QMat *w = all[i];
        if (restore) {
            copy_bytes(w->q, w->q0, (uint32_t)(w->rows * w->cols));
            copy_bytes(w->s, w->s0, 4u * (uint32_t)w->rows);
        } else {
            requant_matrix(w, bits, scheme, m->s.ff); /* the run state's widest buffer as scratch */
        }
        dl_row_sums(w->q, w->rows, w->cols, w->qsum);
    }
    return n;
}

int32_t DL_EXPORT("dl_model_requantize") dl_model_requantize(Model *m, int32_t bits, int32_t scheme) {
    if (bits < DL_REQUANT_MIN_BITS || bits > DL_REQUANT_MAX_BITS || scheme < 0 || scheme >= DL_SCHEME_COUNT) {
        last_error = "bits out of range or an unknown scheme (py_src/decodelab/spec.py lists them)";
        return 0;
    }
    return each_matrix(m, bits, scheme, 0);
}

int32_t DL_EXPORT("dl_model_restore") dl_model_restore(Model *m) { return each_matrix(m, 0, 0, 1); }

/* Address of the in-use int8 data and scales of matrix i (order: wte, wpe, then per layer
 * qkv, proj, fc, fc2): out[0] = q pointer, out[1] = scale pointer, out[2] = rows, out[3] = cols. */
int32_t DL_EXPORT("dl_model_matrix") dl_model_matrix(const Model *m, int32_t i, uint32_t *out) {
    const QMat *w;
    if (i == 0) w = &m->w.wte;
    else if (i == 1) w = &m->w.wpe;
    else if (i - 2 < 4 * m->cfg.n_layers) {
        const Layer *L = &m->w.layer[(i - 2) / 4];
        const QMat *ws[4] = {&L->qkv, &L->proj, &L->fc, &L->fc2};
        w = ws[(i - 2) % 4];
    } else return 0;
    out[0] = (uint32_t)(uintptr_t)w->q;
    out[1] = (uint32_t)(uintptr_t)w->s;
    out[2] = (uint32_t)w->rows;
    out[3] = (uint32_t)w->cols;
    return 1;
}

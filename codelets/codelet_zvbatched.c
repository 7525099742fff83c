/* Variable-size batches (?getrf/potrf/geqrf_vbatched, their solves) and the fixed-size factorizations that go the
 * same way with GPUs (src/zbatched.c, fixed_by_split): no StarPU handle per matrix; one task a worker, sharing the
 * batch by claims (the solves) or from both ends (the factorizations: run_zvbatch_split, below). */
#include <complex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "codelets.h"

/* one matrix of a variable-size batch on a CPU: its LAPACK info; aux its pivots (getrf) or tau (geqrf) */
static int zvbatch_one(int op, char uplo, int m, int n, starsolve_complex64_t *A, int lda, void *aux)
{
    if (op == SS_BATCH_GETRF)
        return ss_zgetrf_one(m, n, A, lda, (int *)aux);
    if (op == SS_BATCH_POTRF) {
        const size_t lwork = ss_zpotrf_one_lwork(uplo, n);
        starsolve_complex64_t *work = lwork ? malloc(lwork * sizeof *work) : NULL;   /* none: neither copy nor tiles at n */
        int info = ss_zpotrf_one(uplo, n, A, lda, work);
        free(work);
        return info;
    }
    starsolve_complex64_t *work = malloc(ss_zgeqrf_one_lwork(n) * sizeof *work);
    if (!work)   /* as LAPACKE_zgeqrf, which allocated its own */
        return LAPACK_WORK_MEMORY_ERROR;
    int info = ss_zgeqrf_one(m, n, A, lda, (starsolve_complex64_t *)aux, work);
    free(work);
    return info;
}

/* Variable-size solves: as run_zbatch_claims, one task a CPU worker claiming runs of the list of matrices
 * (the caller's arrays in place, no StarPU handle per matrix) */
struct zvbatch_claims {
    const struct ss_zvbatch_solve *solve;
    const int *idx;                    /* the matrices to solve with, in order */
    long count, claim;
    long next;                         /* the first unclaimed entry of idx (atomic) */
};

void ss_zvbatch_solve_one(const struct ss_zvbatch_solve *s, int b)
{
    const int n = s->n[b], nrhs = s->nrhs[b];
    if (s->op == SS_BATCH_GETRS) {
        ss_zgetrs_one(s->trans, n, nrhs, s->A[b], s->lda[b], (const int *)s->aux[b], s->B[b], s->ldb[b]);
    } else if (s->op == SS_BATCH_POTRS) {
        ss_zpotrs_one(s->uplo, n, nrhs, s->A[b], s->lda[b], s->B[b], s->ldb[b]);
    } else {   /* least squares, m >= n: B(1:n) = R^-1 (Q^H B)(1:n) */
        ss_zgeqrs_one(s->m[b], n, nrhs, s->A[b], s->lda[b], (const starsolve_complex64_t *)s->aux[b], s->B[b],
                      s->ldb[b]);
    }
}

static void zvbatch_claims_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_claims *c = cl_arg;
    for (;;) {
        long first = __atomic_fetch_add(&c->next, c->claim, __ATOMIC_RELAXED);
        if (first >= c->count)
            return;
        long last = first + c->claim < c->count ? first + c->claim : c->count;
        for (long p = first; p < last; p++)   /* a solve reads its factors once: nothing to prefetch for */
            ss_zvbatch_solve_one(c->solve, c->idx[p]);
    }
}

static struct starpu_codelet cl_zvbatch_claims = {
    .where = STARPU_CPU, .cpu_funcs = { zvbatch_claims_cpu }, .nbuffers = 0, .name = "zvbatch_claims",
    .callback_func = ss_trace_task_done,
};

void run_zvbatch_solve_claims(const struct ss_zvbatch_solve *s, const int *idx, int count, int claim)
{
    struct zvbatch_claims c = { .solve = s, .idx = idx, .count = count, .claim = claim > 0 ? claim : 1 };
    ss_run_on_cpu_workers(&cl_zvbatch_claims, &c, (c.count + c.claim - 1) / c.claim);
}

/* Variable-size factorizations: the list of matrices is shared from both ends. Each CPU worker claims runs from
 * the back and factors them in place (the caller's arrays, no StarPU handle per matrix: a handle per matrix
 * took 1.36 s on 2 cores for 100000 matrices of orders 4-16, against 0.07 s for an OpenMP loop of the same
 * LAPACKE calls, bench/NOTES.md, session 38). With GPUs the list is sorted by shape (src/zbatched.c) and each
 * CUDA worker takes chunks from the front (the smallest matrices, where a CPU spends its time in LAPACKE's call
 * overhead) through its slots: a chunk is packed into a slot's pinned buffer, factored on the GPU (one call of
 * the fixed-size kernels per run of equal shapes) and unpacked. The two ends meet where their speeds put them,
 * with no model to calibrate, and the CPUs' own part costs no copy. With a StarPU handle per matrix (until
 * session 39) adding an H100 to the 16-core machine made every shape 4-14x slower (bench/NOTES.md, session 39).
 *
 * The copies in and out of the slots are what bound a GPU fed by its worker's thread alone (~2-3 GB/s, one
 * chunk at a time, bench/NOTES.md, session 39). So every CPU worker helps: before each claim from the back it
 * unpacks a piece of a slot whose results are back, or packs a piece of a chunk into a slot (many CPUs share one
 * chunk's pieces), and claims from the back only when no slot needs it. While the GPU keeps up, the CPUs spend
 * their time feeding it (a copy costs a CPU a fraction of a factorization); when it falls behind, its slots stay
 * full and the CPUs factor from the back.
 * Without CPU workers the calling thread helps instead. Each of a CUDA worker's slots has its own lane
 * (ss_cuda_lane_*), so several chunks' kernels run at once. */

/* Packed bytes a front chunk holds (its last matrix may pass the mark), and the slots a front owner has. A slot's
 * chunk costs the fixed-size kernels' calls once per shape it holds, and those run fast only on many matrices at
 * once: 2000 matrices of orders 128-512 took the GPU's kernels 223 ms in chunks of 8 MB, 82 in 32 MB, 55 in 64 MB
 * (bench/NOTES.md, session 41). Each slot stays pinned on the host (ss_cuda_hwork) and as large on the GPU
 * (ss_cuda_dwork2). */
#define FRONT_CHUNK_BYTES ((size_t)32 << 20)
#define FRONT_SLOTS 8

/* A chunk is packed and unpacked in pieces, each by whichever helper takes it, so that many CPUs copy one large
 * chunk at once (one thread a chunk bound the front: session 41). A piece is whole matrices, about PIECE_BYTES,
 * at most PIECE_MATRICES of them (tiny matrices cost their calls more than their bytes); a chunk ends at
 * SLOT_PIECES pieces. */
#define PIECE_BYTES ((size_t)1 << 20)
#define PIECE_MATRICES 256
#define SLOT_PIECES 64

/* With a front, a CPU's claim from the back also ends once its matrices' m n min(m, n) reach this (~0.2 ms of a
 * core): a CPU inside a claim cannot copy for the front (the automatic claim, 4 matrices of order ~500, kept them
 * away for ~15 ms at a time: session 41). */
#define CLAIM_WORK_WITH_FRONT 4e6

/* A slot's life: a helper or its owner fills it (FREE -> PACKING -> PACKED), its owner factors it (-> FLIGHT ->
 * DONE once the results are back in host), a helper or the owner copies them out (-> UNPACKING -> FREE). The
 * owner retires its slots (RETIRED) when they are all free and the front is closed. Under the split's lock. */
enum slot_state { SLOT_FREE, SLOT_PACKING, SLOT_PACKED, SLOT_FLIGHT, SLOT_DONE, SLOT_UNPACKING, SLOT_RETIRED };

struct packed_layout { size_t aux, info, bytes; };   /* offsets in a packed chunk: take_front_locked() */
struct packed_cursor { int k; size_t a, x; };   /* entry k of idx; elements of matrices and items of aux before it */

struct front_slot {
    enum slot_state state;
    int owner;                         /* the worker that factors it */
    int lane;                          /* which of its owner's slots (on a CUDA worker, its lane) */
    char *host;                        /* the chunk, packed */
    char *dev;                         /* its room in GPU memory (CUDA owners) */
    int first, count;                  /* the chunk: idx[first .. first + count) */
    struct packed_layout l;
    int npieces;                       /* piece p: entries piece[p].k .. piece[p + 1].k of the chunk */
    struct packed_cursor piece[SLOT_PIECES + 1];
    int next_piece, pieces_left;       /* PACKING, UNPACKING: the next piece to hand out, those not finished */
};

struct zvbatch_split {
    int op;
    char uplo;
    const int *idx;                    /* the non-empty matrices, sorted by shape */
    const int *m, *n, *lda;
    starsolve_complex64_t *const *A;
    void *const *aux;                  /* per matrix its pivots or tau; NULL for potrf */
    size_t aux_elemsize;
    int *info;
    int claim;                         /* matrices a CPU claim from the back */
    int pad;                           /* pad square LU and Cholesky to fewer shapes (packed_dims) */
    int gpu_front;                     /* the front's owners are CUDA workers: its chunks must fit our kernels */
    int fronts;                        /* front owners submitted: helping is pointless without */
    size_t largest;                    /* the largest packed_bytes of one matrix of the batch */
    size_t slot_bytes;                 /* a slot's room: a chunk, its last matrix past the mark included */
    pthread_mutex_t lock;
    pthread_cond_t changed;            /* a slot changed state, or the front closed */
    int lo, hi;                        /* idx[lo .. hi) not taken yet */
    int front_closed;                  /* no more chunks for the front (what is left does not fit the GPUs) */
    struct front_slot *slot;           /* the owners' slots, as they register (fronts * FRONT_SLOTS room) */
    int nslots;
};

/* Matrix b's order in a packed chunk. With s->pad, a square LU or Cholesky of order n > 16 is packed as [A 0; 0 I]
 * of the next multiple of 8 (n < 64), 16 (n < 256) or 32: its factors are A's factors and I, exactly (the
 * padding's rows are zero in A's columns, so no pivot comes from them and no update reaches them), its info is
 * A's, its first n pivots are A's. Few orders make long runs of one shape: the fixed-size kernels then get their batch (a chunk
 * of ~5 matrices of each of many orders left the GPU mostly idle, bench/NOTES.md, session 39), at the cost of
 * up to (1 + 8/17)^2 more bytes. Other shapes as they are. */
static void packed_dims(const struct zvbatch_split *s, int b, int *pm, int *pn)
{
    int m = s->m[b], n = s->n[b];
    *pm = m;
    *pn = n;
    if (s->pad && m == n && n > 16 && (s->op == SS_BATCH_GETRF || s->op == SS_BATCH_POTRF)) {
        int step = n < 64 ? 8 : n < 256 ? 16 : 32;
        *pm = *pn = (n + step - 1) / step * step;
    }
}

/* what matrix b takes in a packed chunk (struct packed_layout): itself (padded), its pivots or tau, its info */
static size_t packed_bytes(const struct zvbatch_split *s, int b)
{
    int pm, pn;
    packed_dims(s, b, &pm, &pn);
    return (size_t)pm * pn * sizeof(starsolve_complex64_t) + (s->aux ? (size_t)ss_min(pm, pn) * s->aux_elemsize : 0) +
           sizeof(int);
}

/* The next chunk from the front into slot f: idx[f->first .. f->first + f->count), up to FRONT_CHUNK_BYTES packed
 * (the last matrix may pass it) or SLOT_PIECES pieces, each matrix fitting our GPU kernels when the owners are GPUs
 * (ss_zbatch_cuda_applies); its pieces and its layout (the matrices one after another in their packed dims, leading
 * dimension their packed rows, then their pivots or tau, then their infos; offsets in bytes). Returns the count;
 * 0 when none is left for the front, which then closes. Under s->lock. */
static int take_front_locked(struct zvbatch_split *s, struct front_slot *f)
{
    struct packed_cursor c = { s->lo, 0, 0 };
    size_t bytes = 0, piece_bytes = 0;
    int piece_count = 0;
    f->npieces = 0;
    while (!s->front_closed && c.k < s->hi && bytes < FRONT_CHUNK_BYTES) {
        int b = s->idx[c.k], pm, pn;
        packed_dims(s, b, &pm, &pn);
#ifdef STARSOLVE_USE_CUDA
        if (s->gpu_front && !ss_zbatch_cuda_applies(s->op, pm, pn, 0))
            break;
#endif
        if (piece_count == 0)
            f->piece[f->npieces++] = c;
        size_t mb = packed_bytes(s, b);
        bytes += mb;
        piece_bytes += mb;
        piece_count++;
        c.k++;
        c.a += (size_t)pm * pn;
        c.x += (size_t)ss_min(pm, pn);
        if (piece_bytes >= PIECE_BYTES || piece_count == PIECE_MATRICES) {
            piece_bytes = 0;
            piece_count = 0;
            if (f->npieces == SLOT_PIECES)
                break;
        }
    }
    f->piece[f->npieces] = c;
    f->first = s->lo;
    f->count = c.k - s->lo;
    s->lo = c.k;
    f->l.aux = c.a * sizeof(starsolve_complex64_t);
    f->l.info = (f->l.aux + (s->aux ? c.x * s->aux_elemsize : 0) + 15) / 16 * 16;   /* ints aligned */
    f->l.bytes = f->l.info + (size_t)f->count * sizeof(int);
    if (f->count == 0 && !s->front_closed) {
        s->front_closed = 1;
        pthread_cond_broadcast(&s->changed);
    }
    return f->count;
}

/* the next claim from the back: [*first, *first + count), at most s->claim matrices, with fronts also at most
 * CLAIM_WORK_WITH_FRONT of work (at least one matrix); 0 when none is left. Under s->lock. */
static int take_back_locked(struct zvbatch_split *s, int *first)
{
    int most = ss_min(s->claim, s->hi - s->lo), count = 0;
    for (double work = 0; count < most && (s->fronts == 0 || work < CLAIM_WORK_WITH_FRONT); count++) {
        const int b = s->idx[s->hi - 1 - count];
        work += (double)s->m[b] * s->n[b] * ss_min(s->m[b], s->n[b]);
    }
    s->hi -= count;
    *first = s->hi;
    return count;
}

/* One matrix of a packed chunk (buf, laid out as l), met in the chunk's order: its packed dims, where it, its
 * pivots or tau and its info sit. packed_next gives the chunk's next one (c->k from first). */
struct packed_item {
    int k, b, pm, pn;                  /* entry k of idx, matrix b of the caller's arrays */
    starsolve_complex64_t *A;
    char *aux;
    int *info;
};
static struct packed_item packed_next(const struct zvbatch_split *s, const struct packed_layout *l, char *buf,
                                      struct packed_cursor *c, int first)
{
    struct packed_item it = { .k = c->k, .b = s->idx[c->k] };
    packed_dims(s, it.b, &it.pm, &it.pn);
    it.A = (starsolve_complex64_t *)buf + c->a;
    it.aux = buf + l->aux + c->x * s->aux_elemsize;
    it.info = (int *)(buf + l->info) + (c->k - first);
    c->k++;
    c->a += (size_t)it.pm * it.pn;
    c->x += (size_t)ss_min(it.pm, it.pn);
    return it;
}

/* piece p of the slot's chunk into its buffer, padded (packed_dims) with zeros and ones on the diagonal (pivots,
 * tau and infos are outputs only) */
static void pack_piece(const struct zvbatch_split *s, const struct front_slot *f, int p)
{
    struct packed_cursor c = f->piece[p];
    while (c.k < f->piece[p + 1].k) {
        struct packed_item it = packed_next(s, &f->l, f->host, &c, f->first);
        const int m = s->m[it.b], n = s->n[it.b];
        if (it.pm != m || it.pn != n) {
            memset(it.A, 0, (size_t)it.pm * it.pn * sizeof *it.A);
            for (int d = ss_min(m, n); d < ss_min(it.pm, it.pn); d++)
                it.A[d + (size_t)d * it.pm] = 1;
        }
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, s->A[it.b], s->lda[it.b], it.A, it.pm);
    }
}

/* piece p's factors, pivots or tau and infos back into the caller's arrays */
static void unpack_piece(const struct zvbatch_split *s, const struct front_slot *f, int p)
{
    struct packed_cursor c = f->piece[p];
    while (c.k < f->piece[p + 1].k) {
        struct packed_item it = packed_next(s, &f->l, f->host, &c, f->first);
        const int m = s->m[it.b], n = s->n[it.b];
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, it.A, it.pm, s->A[it.b], s->lda[it.b]);
        if (s->aux)   /* a padded LU's first min(m, n) pivots are A's */
            memcpy(s->aux[it.b], it.aux, (size_t)ss_min(m, n) * s->aux_elemsize);
        s->info[it.b] = *it.info;
    }
}

/* matrix b factored in place, in the caller's arrays */
static void factor_in_place(const struct zvbatch_split *s, int b)
{
    s->info[b] = zvbatch_one(s->op, s->uplo, s->m[b], s->n[b], s->A[b], s->lda[b], s->aux ? s->aux[b] : NULL);
}

/* a slot of owner (-1: any) in state st, or NULL. Under s->lock. */
static struct front_slot *find_slot(struct zvbatch_split *s, int owner, enum slot_state st)
{
    for (int i = 0; i < s->nslots; i++)
        if (s->slot[i].state == st && (owner < 0 || s->slot[i].owner == owner))
            return &s->slot[i];
    return NULL;
}

static void set_state(struct zvbatch_split *s, struct front_slot *f, enum slot_state st)
{
    f->state = st;
    pthread_cond_broadcast(&s->changed);
}

/* the slot of owner (-1: any) in state st (PACKING, UNPACKING) with a piece not handed out yet, the earliest chunk
 * first (it flies or frees its slot first); NULL if none. Under s->lock. */
static struct front_slot *find_open_piece(struct zvbatch_split *s, int owner, enum slot_state st)
{
    struct front_slot *best = NULL;
    for (int i = 0; i < s->nslots; i++) {
        struct front_slot *f = &s->slot[i];
        if (f->state == st && f->next_piece < f->npieces && (owner < 0 || f->owner == owner) &&
            (!best || f->first < best->first))
            best = f;
    }
    return best;
}

/* f into st (PACKING, UNPACKING), its pieces all to hand out. Under s->lock. */
static void open_pieces(struct zvbatch_split *s, struct front_slot *f, enum slot_state st)
{
    f->next_piece = 0;
    f->pieces_left = f->npieces;
    set_state(s, f, st);
}

/* One piece of copying for the front of owner (-1: any owner's slots): a piece of results unpacked (a slot whose
 * results are back opened for it), else a piece of a chunk packed (the next chunk taken into a free slot). The
 * last piece of a slot moves it on: PACKING -> PACKED, UNPACKING -> FREE. Returns 1 if it did one, 0 if there was
 * none to do. Called and returns under s->lock, which it lets go of while it copies. */
static int copy_for_front(struct zvbatch_split *s, int owner)
{
    struct front_slot *f = find_open_piece(s, owner, SLOT_UNPACKING);
    if (!f && (f = find_slot(s, owner, SLOT_DONE)))
        open_pieces(s, f, SLOT_UNPACKING);
    if (!f)
        f = find_open_piece(s, owner, SLOT_PACKING);
    if (!f && !s->front_closed && (f = find_slot(s, owner, SLOT_FREE))) {
        if (take_front_locked(s, f) > 0)
            open_pieces(s, f, SLOT_PACKING);
        else
            f = NULL;
    }
    if (!f)
        return 0;
    const int p = f->next_piece++;
    const enum slot_state st = f->state;
    pthread_mutex_unlock(&s->lock);
    if (st == SLOT_PACKING)
        pack_piece(s, f, p);
    else
        unpack_piece(s, f, p);
    pthread_mutex_lock(&s->lock);
    if (--f->pieces_left == 0)
        set_state(s, f, st == SLOT_PACKING ? SLOT_PACKED : SLOT_FREE);
    return 1;
}

/* whether a registered slot is still being packed, waits to start, flies or holds results to unpack. Under
 * s->lock. */
static int front_busy(const struct zvbatch_split *s)
{
    for (int i = 0; i < s->nslots; i++)
        if (s->slot[i].state != SLOT_FREE && s->slot[i].state != SLOT_RETIRED)
            return 1;
    return 0;
}

/* CPU: claims from the back, factored in place, with the front's copying first (copy_for_front) while there
 * are front owners; when nothing is left to take, the copying of what the fronts still have out */
static void zvbatch_back_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_split *s = cl_arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (s->fronts > 0 && copy_for_front(s, -1))
            continue;
        int first, count = take_back_locked(s, &first);
        if (count == 0)
            break;
        pthread_mutex_unlock(&s->lock);
        for (int k = first + count - 1; k >= first; k--) {   /* downwards, the way the claims go */
            if (k > first && ss_batch_prefetches(s->op))
                ss_prefetch_matrix(s->A[s->idx[k - 1]], sizeof(starsolve_complex64_t), s->m[s->idx[k - 1]],
                                   s->n[s->idx[k - 1]], s->lda[s->idx[k - 1]]);
            factor_in_place(s, s->idx[k]);
        }
        pthread_mutex_lock(&s->lock);
    }
    /* Wait for the fronts' last chunks to unpack them. A front owner that has not registered its slots yet
     * finds nothing left to take and retires at once. */
    while (front_busy(s))
        if (!copy_for_front(s, -1))
            pthread_cond_wait(&s->changed, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

/* The calling thread, where there is no CPU worker: it copies for the fronts (copy_for_front) until the front
 * is closed and every slot is free, instead of idling while the GPUs' owners copy alone (the GPU front alone
 * was bound by its one copying thread, bench/NOTES.md, session 40). */
static void help_fronts_from_caller(struct zvbatch_split *s)
{
    pthread_mutex_lock(&s->lock);
    while ((s->fronts > 0 && !s->front_closed) || front_busy(s))
        if (!copy_for_front(s, -1))
            pthread_cond_wait(&s->changed, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

/* How a front owner factors a packed slot: start it; done says (without waiting) whether its results are back in
 * the slot's host buffer. */
struct front_owner {
    void (*start)(const struct zvbatch_split *s, struct front_slot *f, void *ctx);
    int (*done)(struct front_slot *f, void *ctx);
    void *ctx;
};

/* The front owner's loop on this worker, with FRONT_SLOTS slots of s->slot_bytes at host (and dev): it starts
 * every packed slot of its own, marks those whose results are back, copies for its own slots like a helper
 * (copy_for_front) when it has nothing to start, and retires its slots when they are all free and the front is
 * closed. */
static void run_front(struct zvbatch_split *s, const struct front_owner *o, char *host, char *dev)
{
    const int me = starpu_worker_get_id_check();
    pthread_mutex_lock(&s->lock);
    STARPU_ASSERT(s->nslots + FRONT_SLOTS <= s->fronts * FRONT_SLOTS);
    for (int i = 0; i < FRONT_SLOTS; i++)
        s->slot[s->nslots++] = (struct front_slot){ .state = SLOT_FREE, .owner = me, .lane = i,
                                                    .host = host + (size_t)i * s->slot_bytes,
                                                    .dev = dev ? dev + (size_t)i * s->slot_bytes : NULL };
    pthread_cond_broadcast(&s->changed);
    for (;;) {
        struct front_slot *f = find_slot(s, me, SLOT_PACKED);
        if (f) {
            f->state = SLOT_FLIGHT;
            pthread_mutex_unlock(&s->lock);
            o->start(s, f, o->ctx);
            pthread_mutex_lock(&s->lock);
            continue;
        }
        int flying = 0;
        for (int i = 0; i < s->nslots; i++) {
            f = &s->slot[i];
            if (f->owner != me || f->state != SLOT_FLIGHT)
                continue;
            if (o->done(f, o->ctx))
                set_state(s, f, SLOT_DONE);
            else
                flying = 1;
        }
        if (copy_for_front(s, me))
            continue;
        if (flying) {   /* nothing to copy: until a slot is back or a helper has packed one */
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_nsec += 20000;
            if (t.tv_nsec >= 1000000000L) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&s->changed, &s->lock, &t);
            continue;
        }
        int mine_busy = 0;   /* a helper still packing or unpacking one of mine */
        for (int i = 0; i < s->nslots; i++)
            mine_busy |= s->slot[i].owner == me && s->slot[i].state != SLOT_FREE;
        if (!mine_busy && s->front_closed)
            break;
        if (mine_busy)
            pthread_cond_wait(&s->changed, &s->lock);
    }
    for (int i = 0; i < s->nslots; i++)
        if (s->slot[i].owner == me)
            s->slot[i].state = SLOT_RETIRED;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* A CPU worker as the front's owner (starsolve_set_batch_pack(1) on CPU workers alone: the GPUs' path, packing,
 * helpers and all, where a test can reach it): a slot factored at once, matrix by matrix in its packed dims */
static void start_on_cpu(const struct zvbatch_split *s, struct front_slot *f, void *ctx)
{
    (void)ctx;
    struct packed_cursor c = { f->first, 0, 0 };
    while (c.k < f->first + f->count) {
        struct packed_item it = packed_next(s, &f->l, f->host, &c, f->first);
        *it.info = zvbatch_one(s->op, s->uplo, it.pm, it.pn, it.A, it.pm, s->aux ? it.aux : NULL);
    }
}

static int done_on_cpu(struct front_slot *f, void *ctx)
{
    (void)f, (void)ctx;
    return 1;
}

static void zvbatch_front_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_split *s = cl_arg;
    char *host = malloc(FRONT_SLOTS * s->slot_bytes);
    STARPU_ASSERT_MSG(host, "starsolve: vbatched: out of memory");
    const struct front_owner cpu = { start_on_cpu, done_on_cpu, NULL };
    run_front(s, &cpu, host, NULL);
    free(host);
}

#ifdef STARSOLVE_USE_CUDA
/* the end of the run of equal packed shapes (*m x *n) that starts at entry k, before end */
static int run_end(const struct zvbatch_split *s, int k, int end, int *m, int *n)
{
    packed_dims(s, s->idx[k], m, n);
    int e = k + 1;
    for (int pm, pn; e < end; e++) {
        packed_dims(s, s->idx[e], &pm, &pn);
        if (pm != *m || pn != *n)
            break;
    }
    return e;
}

/* the device workspace of a slot's largest kernel call with its runs of equal shapes cut at cap matrices */
static size_t slot_work_bytes(const struct zvbatch_split *s, const struct front_slot *f, int cap)
{
    const int end = f->first + f->count;
    size_t bytes = 0;
    for (int k = f->first, e; k < end; k = e) {
        int m, n;
        e = run_end(s, k, end, &m, &n);
        size_t w = ss_zbatch_cuda_work_bytes(s->op, m, n, ss_min(e - k, cap), 0);
        bytes = w > bytes ? w : bytes;
    }
    return bytes + 256;
}

/* GPU memory a CUDA front owner leaves free: a kernel's code is loaded on its first launch (CUDA's lazy loading)
 * and cuBLAS may allocate in a call, and either ends the process where the GPU has no room (a front that had its
 * slots and left 2 MB free failed both ways, bench/NOTES.md, session 42). */
#define FRONT_RESERVE ((size_t)64 << 20)

/* A CUDA worker as the front's owner: a slot sent, factored (one call of the fixed-size kernels per run of
 * equal packed shapes) and sent back on the slot's lane, an event recorded behind it. The kernels' workspace
 * grows with the matrices a call takes; where it would leave less than FRONT_RESERVE free (memory the application
 * holds; StarPU itself stops near 90 %: bench/NOTES.md, session 42), the runs are cut into calls of half as many
 * matrices, down to one, and past that the owner factors the slot on the host, as a CPU front owner would. */
static void start_on_cuda(const struct zvbatch_split *s, struct front_slot *f, void *ctx)
{
    cudaEvent_t *done = ctx;
    const int first = f->first, end = f->first + f->count;
    cudaStream_t st = ss_cuda_lane_stream(f->lane);
    int cap = f->count;
    void *work;
    while (!(work = ss_cuda_lane_dwork_try(f->lane, slot_work_bytes(s, f, cap), FRONT_RESERVE)) && cap > 1)
        cap = (cap + 1) / 2;
    if (!work) {
        start_on_cpu(s, f, NULL);
        SS_CUDA(cudaEventRecord(done[f->lane], st));   /* nothing queued before it: done at once */
        return;
    }
    cublasHandle_t h = ss_cuda_lane_blas(f->lane);
    SS_CUDA(cudaMemcpyAsync(f->dev, f->host, f->l.info, cudaMemcpyHostToDevice, st));
    size_t a = 0, x = 0;
    int *info = (int *)(f->dev + f->l.info);
    for (int k = first, e; k < end; k = e) {
        int m, n;
        e = ss_min(run_end(s, k, end, &m, &n), k + cap);
        const int mn = ss_min(m, n);
        cuDoubleComplex *A = (cuDoubleComplex *)f->dev + a;
        char *X = f->dev + f->l.aux + x * s->aux_elemsize;
        long long sA = (long long)m * n;
        if (s->op == SS_BATCH_GETRF)
            ss_zbatch_getrf_cuda(h, st, m, n, A, m, sA, (int *)X, mn, info + (k - first), e - k, 0, work);
        else if (s->op == SS_BATCH_POTRF)
            ss_zbatch_potrf_cuda(h, st, s->uplo, n, A, m, sA, info + (k - first), e - k, 0, work);
        else
            ss_zbatch_geqrf_cuda(h, st, m, n, A, m, sA, (cuDoubleComplex *)X, mn, info + (k - first), e - k, 0, work);
        a += (size_t)(e - k) * m * n;
        x += (size_t)(e - k) * mn;
    }
    SS_CUDA(cudaMemcpyAsync(f->host, f->dev, f->l.bytes, cudaMemcpyDeviceToHost, st));
    SS_CUDA(cudaEventRecord(done[f->lane], st));
}

static int done_on_cuda(struct front_slot *f, void *ctx)
{
    cudaEvent_t *done = ctx;
    cudaError_t e = cudaEventQuery(done[f->lane]);
    if (e == cudaErrorNotReady)
        return 0;
    SS_CUDA(e);
    return 1;
}

/* A front owner that cannot run (no room for its slots) leaves without registering any: the helpers stop counting
 * on it, and with no front left the calling thread stops helping. */
static void withdraw_front(struct zvbatch_split *s)
{
    pthread_mutex_lock(&s->lock);
    s->fronts--;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void zvbatch_front_cuda(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_split *s = cl_arg;
    /* A second CUDA worker of a GPU runs after the first one's front task (one thread drives both: session 41),
     * which leaves nothing to take: it leaves before allocating slots it would not use. */
    pthread_mutex_lock(&s->lock);
    const int nothing_left = s->front_closed || s->lo >= s->hi;
    pthread_mutex_unlock(&s->lock);
    if (nothing_left) {
        withdraw_front(s);
        return;
    }
    /* the slots' room, pinned and on the GPU, their lanes, and FRONT_RESERVE free beside them; where there is no
     * such room (memory the application holds, or StarPU's ~90 %), this GPU takes no chunk and the CPU workers or
     * the calling thread factor the batch */
    char *host = ss_cuda_hwork_try(FRONT_SLOTS * s->slot_bytes);
    char *dev = host ? ss_cuda_dwork2_try(FRONT_SLOTS * s->slot_bytes) : NULL;
    if (!dev || !ss_cuda_lanes_try(FRONT_SLOTS) || ss_cuda_free_bytes() < FRONT_RESERVE) {
        withdraw_front(s);
        return;
    }
    cudaEvent_t done[FRONT_SLOTS];
    for (int i = 0; i < FRONT_SLOTS; i++)
        SS_CUDA(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
    const struct front_owner gpu = { start_on_cuda, done_on_cuda, done };
    run_front(s, &gpu, host, dev);
    for (int i = 0; i < FRONT_SLOTS; i++)
        SS_CUDA(cudaEventDestroy(done[i]));
}
_Static_assert(FRONT_SLOTS <= SS_CUDA_LANES, "a CUDA front owner's slot each needs a lane");
#endif

static struct starpu_codelet cl_zvbatch_back = {
    .where = STARPU_CPU, .cpu_funcs = { zvbatch_back_cpu }, .nbuffers = 0, .name = "zvbatch_back",
    .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zvbatch_front = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { zvbatch_front_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zvbatch_front_cuda },   /* synchronous: it waits for its lanes' last chunks */
#endif
    .nbuffers = 0, .name = "zvbatch_front", .callback_func = ss_trace_task_done,
};

void run_zvbatch_split(int op, char uplo, const int *idx, int count, const int *m, const int *n,
                       starsolve_complex64_t *const *A, const int *lda, void *const *aux, size_t aux_elemsize, int *info,
                       int claim, int cpu_front, int pad)
{
    int cpus[STARPU_NMAXWORKERS], gpus[STARPU_NMAXWORKERS];
    int ncpu = starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, cpus, STARPU_NMAXWORKERS);
    int ngpu = starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, gpus, STARPU_NMAXWORKERS);
    const int cpu_owner = cpu_front && ngpu == 0 && ncpu > 1;   /* tests: the first CPU worker plays the front */
    struct zvbatch_split s = { .op = op, .uplo = uplo, .idx = idx, .m = m, .n = n, .lda = lda, .A = A, .aux = aux,
                               .aux_elemsize = aux_elemsize, .info = info, .claim = claim > 0 ? claim : 1,
                               .pad = pad, .gpu_front = ngpu > 0, .fronts = ngpu + cpu_owner, .lo = 0, .hi = count };
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.changed, NULL);
    if (s.fronts > 0) {
        for (int k = 0; k < count; k++) {
            size_t bytes = packed_bytes(&s, idx[k]);
            s.largest = bytes > s.largest ? bytes : s.largest;
        }
        s.slot_bytes = (FRONT_CHUNK_BYTES + s.largest + 16 + 255) / 256 * 256;   /* take_front_locked's alignment */
        s.slot = calloc((size_t)s.fronts * FRONT_SLOTS, sizeof *s.slot);
        STARPU_ASSERT_MSG(s.slot, "starsolve: vbatched: out of memory");
    }
    struct starpu_task *tasks[STARPU_NMAXWORKERS];
    int nt = 0;
    for (int g = 0; g < ngpu; g++)
        tasks[nt++] = ss_submit_on_worker(&cl_zvbatch_front, &s, gpus[g]);
    for (int c = 0; c < ncpu; c++)
        tasks[nt++] = ss_submit_on_worker(cpu_owner && c == 0 ? &cl_zvbatch_front : &cl_zvbatch_back, &s, cpus[c]);
    if (ncpu == 0 && s.fronts > 0)
        help_fronts_from_caller(&s);
    for (int t = 0; t < nt; t++) {
        int ret = starpu_task_wait(tasks[t]);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_wait (vbatched)");
    }
    /* what no worker could take (matrices too large for our GPU kernels, or GPUs without room for their slots, and
     * no CPU worker): this thread */
    for (int k = s.lo; k < s.hi; k++)
        factor_in_place(&s, idx[k]);
    free(s.slot);
    pthread_cond_destroy(&s.changed);
    pthread_mutex_destroy(&s.lock);
}

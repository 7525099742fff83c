/* Tile descriptors and pivot vectors: StarPU registration and LAPACK-layout copies.
 * Every offset is computed in size_t: n*n exceeds 2^31 for n > 46340. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "pivots.h"

static const size_t elemsizes[] = { sizeof(float), sizeof(double), sizeof(starsolve_complex32_t),
                                    sizeof(starsolve_complex64_t) };

/* Not distributed: every process has its own matrix and runs the whole graph
 * on it (StarPU-MPI's per-node data), as if it were alone. */
static int single_process_owner(const starsolve_desc_t *A, int i, int j)
{
    (void)A; (void)i; (void)j;
    return ss_mpi_local_owner();
}

static int block_cyclic_owner(const starsolve_desc_t *A, int i, int j)
{
    return (i % A->P) * A->Q + j % A->Q;
}

static starsolve_desc_t *desc_alloc(starsolve_prec_t prec, int m, int n, int nb)
{
    starsolve_desc_t *A = calloc(1, sizeof *A);
    if (!A)
        return NULL;
    A->prec = prec;
    A->elemsize = elemsizes[prec];
    A->m = m;
    A->n = n;
    A->nb = nb;
    A->mt = (m + nb - 1) / nb;
    A->nt = (n + nb - 1) / nb;
    A->owner = single_process_owner;
    A->P = A->Q = 1;
    A->tiles = calloc((size_t)A->mt * A->nt + 1, sizeof *A->tiles);
    if (!A->tiles) {
        free(A);
        return NULL;
    }
    return A;
}

/* Where tile (i, j) starts and its leading dimension. */
static char *tile_address(const starsolve_desc_t *A, int i, int j, size_t *ld)
{
    size_t nb = A->nb;
    if (A->owned) {
        *ld = ss_tile_rows(A, i);
        return A->base + ((size_t)j * nb * A->m + (size_t)i * nb * ss_tile_cols(A, j)) * A->elemsize;
    }
    *ld = A->lda;
    return ss_lapack_tile(A, A->base, A->lda, i, j);
}

/* A tile's user data is its matrix's tile size: ss_can_execute judges a task by
 * it, so that the small tiles at a matrix's edge count as the matrix's tiles. */
static void mark_tile(starpu_data_handle_t h, const starsolve_desc_t *A)
{
    starpu_data_set_user_data(h, (void *)(uintptr_t)A->nb);
}

static void register_tiles(starsolve_desc_t *A)
{
    for (int j = 0; j < A->nt; j++)
        for (int i = 0; i < A->mt; i++) {
            starpu_data_handle_t *h = &A->tiles[(size_t)i + (size_t)j * A->mt];
            /* no home node: StarPU allocates where the tile is used; out of core it may
             * evict it to its disk swap, distributed only the tiles a process touches exist there */
            if (A->ooc || A->P * A->Q > 1) {
                starpu_matrix_data_register(h, -1, 0, (uint32_t)ss_tile_rows(A, i), ss_tile_rows(A, i),
                                            ss_tile_cols(A, j), A->elemsize);
                mark_tile(*h, A);
                ss_mpi_register(*h, A->owner(A, i, j));
                continue;
            }
            size_t ld;
            char *p = tile_address(A, i, j, &ld);
            starpu_matrix_data_register(h, STARPU_MAIN_RAM, (uintptr_t)p, ld, ss_tile_rows(A, i), ss_tile_cols(A, j),
                                        A->elemsize);
            mark_tile(*h, A);
            ss_mpi_register(*h, A->owner(A, i, j));
        }
}

static int check_shape(starsolve_prec_t prec, int m, int n, int nb)
{
    if ((unsigned)prec > STARSOLVE_Z) return -2;
    if (m < 0) return -3;
    if (n < 0) return -4;
    if (nb < 1) return -5;
    return 0;
}

enum owned_storage { STORAGE_PINNED, STORAGE_NONE, STORAGE_KEPT };

/* An owned descriptor: tiles in our allocation (pinned where CUDA workers exist, or a kept
 * mapping) or allocated by StarPU where they are used, with no home copy (ooc). */
static int create_owned(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb,
                        enum owned_storage storage)
{
    if (!desc) return -1;
    int info = check_shape(prec, m, n, nb);
    if (info) return info;
    if (ss_ensure_init()) return -1;
    starsolve_desc_t *A = desc_alloc(prec, m, n, nb);
    if (!A) return -1;
    A->owned = 1;
    A->ooc = storage == STORAGE_NONE;
    A->kept = storage == STORAGE_KEPT;
    size_t bytes = A->ooc ? 0 : (size_t)m * n * A->elemsize;
    /* 4 KiB pages: StarPU's registration reads each tile's first and last byte, so a fresh mapping
     * in huge pages faults them all in there, on one thread: on the 2-core CI VM 0.6-0.8 s for
     * 128 MB, where 4 KiB pages fault in where the tasks first write, on every worker at once
     * (bench/NOTES.md, session 46) */
    if (bytes && A->kept)
        A->base = ss_alloc_large_reused(bytes, 0);
    /* starpu_malloc pins the memory when CUDA workers exist: transfers run at full speed */
    else if (bytes && starpu_malloc((void **)&A->base, bytes) != 0)
        A->base = NULL;
    if (bytes && !A->base) {
        free(A->tiles);
        free(A);
        return -1;
    }
    register_tiles(A);
    *desc = A;
    return 0;
}

int starsolve_desc_create(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb)
{
    SS_PUBLIC_CALL;
    return create_owned(desc, prec, m, n, nb, STORAGE_PINNED);
}

int starsolve_desc_create_ooc(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb)
{
    SS_PUBLIC_CALL;
    return create_owned(desc, prec, m, n, nb, STORAGE_NONE);
}

int ss_desc_create_kept(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb)
{
    return create_owned(desc, prec, m, n, nb, STORAGE_KEPT);
}

void starsolve_ooc_traffic(double *read, double *written)
{
    *read = *written = 0;
    if (!ss_ctx.initialized)
        return;
    for (int bus = 0; bus < starpu_bus_get_count(); bus++) {
        struct starpu_profiling_bus_info info;
        if (starpu_bus_get_profiling_info(bus, &info) != 0)   /* reading resets the bus's counters */
            continue;
        enum starpu_node_kind src = starpu_node_get_kind((unsigned)starpu_bus_get_src(bus));
        enum starpu_node_kind dst = starpu_node_get_kind((unsigned)starpu_bus_get_dst(bus));
        if (src == STARPU_DISK_RAM && dst == STARPU_CPU_RAM)
            *read += (double)info.transferred_bytes;
        else if (src == STARPU_CPU_RAM && dst == STARPU_DISK_RAM)
            *written += (double)info.transferred_bytes;
    }
}

int starsolve_desc_create_dist(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb, int P, int Q)
{
    SS_PUBLIC_CALL;
    if (!desc) return -1;
    int info = check_shape(prec, m, n, nb);
    if (info) return info;
    if (P < 1) return -6;
    if (Q < 1) return -7;
    if (ss_ensure_init()) return -1;
    if (P * Q != starsolve_mpi_size()) return -6;   /* the grid must cover the processes exactly */
    if (P * Q == 1)
        return create_owned(desc, prec, m, n, nb, STORAGE_PINNED);
    starsolve_desc_t *A = desc_alloc(prec, m, n, nb);
    if (!A) return -1;
    A->owned = 1;
    A->P = P;
    A->Q = Q;
    A->owner = block_cyclic_owner;
    register_tiles(A);
    *desc = A;
    return 0;
}

int ss_desc_create_workspace(starsolve_desc_t **desc, const starsolve_desc_t *like, int m, int n)
{
    if (like->P * like->Q > 1)
        return starsolve_desc_create_dist(desc, like->prec, m, n, like->nb, like->P, like->Q);
    return starsolve_desc_create_ooc(desc, like->prec, m, n, like->nb);
}

int starsolve_desc_create_lapack(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb,
                                 void *Aptr, int lda)
{
    SS_PUBLIC_CALL;
    if (!desc) return -1;
    int info = check_shape(prec, m, n, nb);
    if (info) return info;
    if (!Aptr && m > 0 && n > 0) return -6;
    if (lda < ss_max(1, m)) return -7;
    if (ss_ensure_init()) return -1;
    starsolve_desc_t *A = desc_alloc(prec, m, n, nb);
    if (!A) return -1;
    A->owned = 0;
    A->base = Aptr;
    A->lda = lda;
    /* Pageable memory would make every transfer a staged, blocking copy. */
    if (m > 0 && n > 0)
        A->pinned_bytes = ss_pin_host(Aptr, ((size_t)lda * (n - 1) + m) * A->elemsize);
    register_tiles(A);
    *desc = A;
    return 0;
}

void ss_tile_copy_lapack(const starsolve_desc_t *A, int i, int j, char *lapack, size_t lda, int to_lapack)
{
    starpu_data_handle_t h = ss_tile(A, i, j);
    starpu_data_acquire(h, to_lapack ? STARPU_R : STARPU_W);
    /* the tile's copy in host memory, wherever StarPU put it (out of core: just read from disk) */
    size_t ld = starpu_matrix_get_local_ld(h);
    char *t = (char *)starpu_matrix_get_local_ptr(h);
    size_t rowbytes = (size_t)ss_tile_rows(A, i) * A->elemsize;
    char *l = ss_lapack_tile(A, lapack, lda, i, j);
    for (int c = 0; c < ss_tile_cols(A, j); c++) {
        char *tc = t + (size_t)c * ld * A->elemsize, *lc = l + (size_t)c * lda * A->elemsize;
        if (to_lapack)
            memcpy(lc, tc, rowbytes);
        else
            memcpy(tc, lc, rowbytes);
    }
    starpu_data_release(h);
}

/* Copy every tile to or from the LAPACK array, holding each tile in main memory meanwhile. */
static void copy_lapack(const starsolve_desc_t *A, char *lapack, size_t lda, int to_lapack)
{
    for (int j = 0; j < A->nt; j++)
        for (int i = 0; i < A->mt; i++)
            ss_tile_copy_lapack(A, i, j, lapack, lda, to_lapack);
}

int starsolve_desc_from_lapack(starsolve_desc_t *A, const void *lapack, int lda)
{
    SS_PUBLIC_CALL;
    if (!A || !A->owned || A->P * A->Q > 1) return -1;   /* distributed: starsolve_desc_scatter */
    if (!lapack && A->m > 0 && A->n > 0) return -2;
    if (lda < ss_max(1, A->m)) return -3;
    copy_lapack(A, (char *)lapack, lda, 0);
    return 0;
}

int starsolve_desc_to_lapack(const starsolve_desc_t *A, void *lapack, int lda)
{
    SS_PUBLIC_CALL;
    if (!A || !A->owned || A->P * A->Q > 1) return -1;   /* distributed: starsolve_desc_gather */
    if (!lapack && A->m > 0 && A->n > 0) return -2;
    if (lda < ss_max(1, A->m)) return -3;
    copy_lapack(A, lapack, lda, 1);
    return 0;
}

void starsolve_desc_flush(starsolve_desc_t *A)
{
    SS_PUBLIC_CALL;
    for (size_t t = 0; t < (size_t)A->mt * A->nt; t++) {
        starpu_data_acquire(A->tiles[t], STARPU_R);
        starpu_data_release(A->tiles[t]);
    }
}

static void desc_destroy(starsolve_desc_t *A, int coherent)
{
    if (!A)
        return;
    /* unregistering brings every tile back home, into the caller's array for a borrowed descriptor,
     * unless its contents are not wanted */
    for (size_t t = 0; t < (size_t)A->mt * A->nt; t++)
        if (coherent)
            starpu_data_unregister(A->tiles[t]);
        else
            starpu_data_unregister_no_coherency(A->tiles[t]);
    if (A->owned && A->kept)
        ss_free_large_kept(A->base, (size_t)A->m * A->n * A->elemsize);
    else if (A->owned && A->base)
        starpu_free(A->base);
    ss_unpin_host(A->base, A->pinned_bytes);
    free(A->tiles);
    free(A);
}

void starsolve_desc_destroy(starsolve_desc_t *A)
{
    SS_PUBLIC_CALL;
    desc_destroy(A, 1);
}

void ss_desc_discard(starsolve_desc_t *A)
{
    if (A && A->ooc && A->P * A->Q == 1 && !A->base) {
        /* no home and one process: nothing goes anywhere, so each tile goes once the tasks
         * submitted on it are done, and the caller does not wait for StarPU to free its copies */
        for (size_t t = 0; t < (size_t)A->mt * A->nt; t++)
            starpu_data_unregister_submit(A->tiles[t]);
        free(A->tiles);
        free(A);
        return;
    }
    desc_destroy(A, 0);
}

int starsolve_desc_m(const starsolve_desc_t *A) { return A->m; }
int starsolve_desc_n(const starsolve_desc_t *A) { return A->n; }
int starsolve_desc_nb(const starsolve_desc_t *A) { return A->nb; }

int starsolve_pivots_create(starsolve_pivots_t **pivp, const starsolve_desc_t *A)
{
    SS_PUBLIC_CALL;
    if (!pivp || !A) return -1;
    starsolve_pivots_t *piv = calloc(1, sizeof *piv);
    if (!piv) return -1;
    piv->nb = A->nb;
    piv->minmn = ss_min(A->m, A->n);
    piv->npanels = ss_min(A->mt, A->nt);
    piv->stride = ss_piv_ints(A->nb);
    piv->data = calloc((size_t)piv->npanels * piv->stride + 1, sizeof *piv->data);
    piv->panels = calloc((size_t)piv->npanels + 1, sizeof *piv->panels);
    if (!piv->data || !piv->panels) {
        free(piv->data);
        free(piv->panels);
        free(piv);
        return -1;
    }
    for (int k = 0; k < piv->npanels; k++) {
        int len = ss_min(piv->minmn - k * piv->nb, piv->nb);
        int *v = piv->data + (size_t)k * piv->stride;
        v[0] = len;
        starpu_vector_data_register(&piv->panels[k], STARPU_MAIN_RAM, (uintptr_t)v, ss_piv_ints(len), sizeof(int));
        ss_mpi_register(piv->panels[k], A->owner(A, k, k));   /* with the panel's diagonal tile */
    }
    *pivp = piv;
    return 0;
}

void starsolve_pivots_to_lapack(starsolve_pivots_t *piv, int *ipiv)
{
    SS_PUBLIC_CALL;
    for (int k = 0; k < piv->npanels; k++) {
        starpu_data_acquire(piv->panels[k], STARPU_R);
        int *v = piv->data + (size_t)k * piv->stride;
        memcpy(ipiv + (size_t)k * piv->nb, ss_piv_ipiv(v), (size_t)v[0] * sizeof *ipiv);
        starpu_data_release(piv->panels[k]);
    }
}

int starsolve_pivots_from_lapack(starsolve_pivots_t *piv, const int *ipiv)
{
    SS_PUBLIC_CALL;
    for (int k = 0; k < piv->npanels; k++) {
        starpu_data_acquire(piv->panels[k], STARPU_W);
        int *v = piv->data + (size_t)k * piv->stride;
        v[0] = ss_min(piv->minmn - k * piv->nb, piv->nb);
        memcpy(ss_piv_ipiv(v), ipiv + (size_t)k * piv->nb, (size_t)v[0] * sizeof *ipiv);
        ss_piv_compose(v, k * piv->nb);
        starpu_data_release(piv->panels[k]);
    }
    return 0;
}

void starsolve_pivots_destroy(starsolve_pivots_t *piv)
{
    SS_PUBLIC_CALL;
    if (!piv)
        return;
    for (int k = 0; k < piv->npanels; k++)
        starpu_data_unregister(piv->panels[k]);
    free(piv->panels);
    free(piv->data);
    free(piv);
}

/* A scratch tile for the algorithms: StarPU allocates it where a task first
 * needs it (home node -1) and frees it after the last task that uses it. */
starpu_data_handle_t ss_workspace_tile(const starsolve_desc_t *A, int i, int j, int m, int n)
{
    starpu_data_handle_t h;
    starpu_matrix_data_register(&h, -1, 0, (uint32_t)m, (uint32_t)m, (uint32_t)n, A->elemsize);
    mark_tile(h, A);
    ss_mpi_register(h, A->owner(A, i, j));
    return h;
}

int ss_tile_groups(const starsolve_desc_t *A, int i0, int i1, int j, int *group_of)
{
    int *owners = malloc((size_t)ss_max(1, i1 - i0) * sizeof *owners), count = 0;
    STARPU_ASSERT_MSG(owners, "starsolve: out of memory");
    for (int i = i0; i < i1; i++) {
        int owner = A->owner(A, i, j), g = 0;
        while (g < count && owners[g] != owner)
            g++;
        if (g == count)
            owners[count++] = owner;
        group_of[i - i0] = g;
    }
    free(owners);
    return count;
}

starpu_data_handle_t ss_workspace_bytes(const starsolve_desc_t *A, int i, int j, size_t bytes)
{
    starpu_data_handle_t h;
    starpu_vector_data_register(&h, -1, 0, (uint32_t)bytes, 1);
    ss_mpi_register(h, A->owner(A, i, j));
    return h;
}

static void release_tile(void *handle)
{
    starpu_data_release(handle);
}

void ss_tile_send_home(const starsolve_desc_t *A, int i, int j)
{
    /* a tile with no home copy (starsolve_desc_create_ooc) has no home to go to:
     * acquiring it in main memory would make StarPU page-lock a host buffer per tile,
     * which stalls the GPU (3 ms a tile: RBT's randomized copy, bench/NOTES.md) */
    if (starpu_cuda_worker_get_count() == 0 || A->ooc || !ss_mpi_owns(A->owner(A, i, j)))
        return;
    /* read access in main memory, after the tile's last submitted writer: StarPU
     * copies the tile home and keeps the GPU copy valid for later readers */
    starpu_data_handle_t h = ss_tile(A, i, j);
    int ret = starpu_data_acquire_cb(h, STARPU_R, release_tile, h);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_data_acquire_cb");
}

/* The memory node of the one GPU that A's tiles may be uploaded to ahead of their tasks, when
 * `bytes` of them on the GPU take at most half its memory (ss_desc_prefetch_gpu's conditions);
 * -1 when they may not. */
static int prefetch_node(const starsolve_desc_t *A, size_t bytes)
{
    if (!ss_ctx.gpu_prefetch || A->ooc || ss_ctx.mpi)
        return -1;
    unsigned nodes[STARPU_MAXNODES];
    if (ss_gpu_memory_nodes(nodes) != 1)
        return -1;   /* no GPU, or several: where each tile goes is the scheduler's choice */
    unsigned node = nodes[0];
    starpu_ssize_t total = starpu_memory_get_total(node);
    if (total > 0 && bytes > (size_t)total / 2)
        return -1;   /* larger than the GPU: uploading ahead would only evict what the next tasks need */
    return (int)node;
}

void ss_desc_prefetch_gpu(const starsolve_desc_t *A, char part)
{
    size_t bytes = (size_t)A->m * A->n * A->elemsize;
    if (part != 'A')
        bytes = bytes / 2 + (size_t)A->nb * A->n * A->elemsize;
    int node = prefetch_node(A, bytes);
    if (node < 0)
        return;
    if (part == 'U') {
        for (int i = 0; i < A->mt; i++)
            for (int j = i; j < A->nt; j++)
                starpu_data_prefetch_on_node(ss_tile(A, i, j), node, 1);
        return;
    }
    for (int j = 0; j < A->nt; j++)
        for (int i = part == 'L' ? j : 0; i < A->mt; i++)
            starpu_data_prefetch_on_node(ss_tile(A, i, j), node, 1);
}

struct prefetch_after { const starsolve_desc_t *A; starpu_data_handle_t after; unsigned node; };

/* starpu_data_acquire_on_node_cb's callback: asynchronous prefetches may be queued from it */
static void prefetch_then_release(void *arg)
{
    struct prefetch_after *p = arg;
    for (int j = 0; j < p->A->nt; j++)
        for (int i = 0; i < p->A->mt; i++)
            starpu_data_prefetch_on_node(ss_tile(p->A, i, j), p->node, 1);
    starpu_data_release_on_node(p->after, STARPU_ACQUIRE_NO_NODE);   /* as acquired: no replicate held */
    free(p);
}

void ss_desc_prefetch_gpu_after(const starsolve_desc_t *A, starpu_data_handle_t after, int copies)
{
    int node = prefetch_node(A, (size_t)copies * A->m * A->n * A->elemsize);
    struct prefetch_after *p = node < 0 ? NULL : malloc(sizeof *p);
    if (!p)
        return;   /* only an early upload is lost: the tasks fetch what they read */
    *p = (struct prefetch_after){ A, after, (unsigned)node };
    int ret = starpu_data_acquire_on_node_cb(after, STARPU_ACQUIRE_NO_NODE, STARPU_R, prefetch_then_release, p);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_data_acquire_on_node_cb");
}

void ss_handle_prefetch_gpus(starpu_data_handle_t h)
{
    unsigned nodes[STARPU_MAXNODES], count = ss_gpu_memory_nodes(nodes);
    for (unsigned g = 0; g < count; g++)
        starpu_data_prefetch_on_node(h, nodes[g], 1);
}

starpu_data_handle_t ss_scratch_buffer(size_t bytes)
{
    starpu_data_handle_t h;
    size_t units = bytes / 16 + 1;
    STARPU_ASSERT_MSG(units <= UINT32_MAX, "scratch buffer of %zu bytes", bytes);
    starpu_vector_data_register(&h, -1, 0, (uint32_t)units, 16);
    return h;
}

void ss_workspace_release(starpu_data_handle_t h)
{
    starpu_data_unregister_submit(h);
}

int starsolve_qr_workspace_create(starsolve_desc_t **T, const starsolve_desc_t *A)
{
    SS_PUBLIC_CALL;
    if (!T) return -1;
    if (!A) return -2;
    /* one nb x nb tile per tile of A (tile rows all full: the tpqrt factors are nb_k x nb_k),
     * distributed like A's: T(i,j) lives with A(i,j) */
    if (A->P * A->Q > 1)
        return starsolve_desc_create_dist(T, A->prec, A->mt * A->nb, A->n, A->nb, A->P, A->Q);
    /* No home copy: StarPU allocates a tile where a task first writes it. The panel
     * algorithm (pzgeqrf.c) writes only the diagonal tiles, and a pinned host
     * allocation of A's size (12.8 GB at n = 40000 in double) would cost seconds. */
    return starsolve_desc_create_ooc(T, A->prec, A->mt * A->nb, A->n, A->nb);
}

starpu_data_handle_t ss_register_vector_owned(void *values, size_t count, size_t elemsize, int owner)
{
    starpu_data_handle_t h;
    starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)values, (uint32_t)count, elemsize);
    ss_mpi_register(h, owner);
    return h;
}

starpu_data_handle_t ss_register_vector(void *values, size_t count, size_t elemsize)
{
    return ss_register_vector_owned(values, count, elemsize, ss_mpi_local_owner());
}

starpu_data_handle_t ss_register_matrix(void *values, int ld, int m, int n, size_t elemsize)
{
    starpu_data_handle_t h;
    starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)values, (uint32_t)ld, (uint32_t)m, (uint32_t)n, elemsize);
    ss_mpi_register(h, ss_mpi_local_owner());
    return h;
}

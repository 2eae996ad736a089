/*
 * mpi_shards.c - every MPI rank reads its own share of each epoch, and rank 0
 * checks that the shares add up.
 *
 *   mpirun -np 4 mpi_shards DATA_DIR [key=value,...]
 *
 * Builds with the MPI compiler wrapper against the installed library:
 *   mpicc mpi_shards.c $(pkg-config --cflags --libs libfeed) -o mpi_shards
 * (the build tree builds it when CMake finds MPI; ctest's mpi_shards runs it).
 *
 * Each rank makes a loader with rank=auto,world_size=auto (libfeed reads Open
 * MPI's OMPI_COMM_WORLD_RANK/_SIZE, or PMI's, MVAPICH2's, Slurm's), reads two
 * epochs, and sends the sample ids it got to rank 0 with MPI_Gather(v).
 * Rank 0 checks, per epoch: every rank had the same number of batches and
 * samples, no id is outside the dataset, every sample was delivered, and the
 * only repeats are the documented padding (the epoch padded to a multiple of
 * the world size by wrapping around: W * ceil(n / W) - n samples twice); and
 * that the two epochs' orders differ.
 *
 * It also asks each rank for device=cuda:local and prints, per rank, the node
 * (MPI_SHARDS_NODE if set, else the host name), the launcher's local rank and
 * what cuda:local chose: the GPU of the local rank (cuda:0 when one GPU is
 * visible), or, without a GPU, create's error, which must name that local rank.
 * Pairs (node, local rank) must be distinct. Exit status 0 if every check holds.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <feed.h>

#define EPOCHS 2
#define NODE_LEN 64
#define NOTE_LEN 192

/* What one rank tells rank 0 about cuda:local. */
struct device_note {
    char node[NODE_LEN];
    int32_t local;      /* the launcher's local rank, -1 if none */
    int32_t status;     /* create's status with device=cuda:local */
    char note[NOTE_LEN]; /* the backend chosen, or create's error */
};

static int make_loader(const char *data, const char *extra, const char *device, feed_loader **out,
                       char *err, size_t errlen)
{
    feed_options o;
    feed_options_init(&o, sizeof o);
    char opts[1024];
    snprintf(opts, sizeof opts,
             "source=%s,rank=auto,world_size=auto,batch_size=4,workers=1,height=32,width=32,"
             "resize_shorter=40,seed=7,epochs=%d,device=%s%s%s",
             data, EPOCHS, device, extra[0] ? "," : "", extra);
    feed_status st = feed_options_parse(&o, opts, err, errlen);
    if (st == FEED_OK)
        st = feed_loader_create(out, &o, err, errlen);
    return st;
}

static void device_note(const char *data, const char *extra, struct device_note *d)
{
    memset(d, 0, sizeof *d);
    const char *node = getenv("MPI_SHARDS_NODE");
    if (node && *node)
        snprintf(d->node, sizeof d->node, "%s", node);
    else if (gethostname(d->node, sizeof d->node - 1) != 0)
        snprintf(d->node, sizeof d->node, "?");
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!lr)
        lr = getenv("MPI_LOCALRANKID");
    if (!lr)
        lr = getenv("SLURM_LOCALID");
    d->local = lr ? atoi(lr) : -1;
    feed_loader *L = NULL;
    char err[512] = "";
    d->status = make_loader(data, extra, "cuda:local", &L, err, sizeof err);
    if (d->status == FEED_OK) {
        feed_stats st = {.struct_size = sizeof st};
        feed_loader_stats(L, &st);
        snprintf(d->note, sizeof d->note, "%s", st.backend);
        feed_loader_destroy(L);
    } else {
        snprintf(d->note, sizeof d->note, "%.*s", (int)sizeof d->note - 1, err); /* the start names the device */
    }
}

/* Rank 0: is cuda:local's choice the local rank's, on every rank? */
static int check_devices(const struct device_note *d, int world)
{
    int bad = 0;
    for (int r = 0; r < world; r++) {
        printf("  rank %d  node %-10s local rank %d  cuda:local -> %s\n", r, d[r].node, d[r].local,
               d[r].note);
        for (int q = 0; q < r; q++)
            if (!strcmp(d[q].node, d[r].node) && d[q].local == d[r].local) {
                printf("mpi_shards: ranks %d and %d share node %s and local rank %d\n", q, r, d[r].node,
                       d[r].local);
                bad = 1;
            }
        char want[64];
        if (d[r].status == FEED_OK) {
            /* cuda:<local rank>, or cuda:0 when the launcher left one GPU visible */
            snprintf(want, sizeof want, "cuda:%d", d[r].local);
            if (strcmp(d[r].note, want) && strcmp(d[r].note, "cuda:0")) {
                printf("mpi_shards: rank %d: cuda:local chose %s, not %s\n", r, d[r].note, want);
                bad = 1;
            }
        } else if (d[r].status == FEED_E_UNSUPPORTED) {
            printf("  (no CUDA backend in this build: cuda:local not checked)\n");
        } else {
            snprintf(want, sizeof want, "local rank %d (openmpi)", d[r].local);
            if (!strstr(d[r].note, want)) {
                printf("mpi_shards: rank %d: cuda:local's error does not name %s\n", r, want);
                bad = 1;
            }
        }
    }
    return bad;
}

/* Rank 0: the shares of one epoch. counts[2r] batches and counts[2r+1]
 * samples of rank r; ids: every rank's ids, rank after rank. */
static int check_epoch(int epoch, const int64_t *counts, const uint64_t *ids, int world, uint64_t n)
{
    int bad = 0;
    uint64_t total = 0;
    for (int r = 0; r < world; r++) {
        if (counts[2 * r] != counts[0] || counts[2 * r + 1] != counts[1]) {
            printf("mpi_shards: epoch %d: rank %d has %" PRId64 " batches / %" PRId64
                   " samples, rank 0 %" PRId64 " / %" PRId64 "\n",
                   epoch, r, counts[2 * r], counts[2 * r + 1], counts[0], counts[1]);
            bad = 1;
        }
        total += (uint64_t)counts[2 * r + 1];
    }
    uint32_t *hits = calloc(n, sizeof *hits);
    uint64_t missing = 0, repeats = 0;
    for (uint64_t i = 0; i < total; i++) {
        if (ids[i] >= n) {
            printf("mpi_shards: epoch %d: sample id %" PRIu64 " is outside the %" PRIu64 " samples\n",
                   epoch, ids[i], n);
            bad = 1;
            continue;
        }
        hits[ids[i]]++;
    }
    for (uint64_t i = 0; i < n; i++) {
        missing += hits[i] == 0;
        repeats += hits[i] > 1 ? hits[i] - 1 : 0;
    }
    uint64_t padding = (uint64_t)world * ((n + (uint64_t)world - 1) / (uint64_t)world) - n;
    if (missing || repeats != padding || total != n + padding) {
        printf("mpi_shards: epoch %d: %" PRIu64 " samples delivered, %" PRIu64 " missing, %" PRIu64
               " repeats (padding %" PRIu64 ")\n",
               epoch, total, missing, repeats, padding);
        bad = 1;
    } else {
        printf("  epoch %d: %d ranks x %" PRId64 " batches, %" PRIu64
               " samples: each of the %" PRIu64 " once, + %" PRIu64 " padding\n",
               epoch, world, counts[0], total, n, padding);
    }
    free(hits);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np N %s DATA_DIR [key=value,...]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const char *extra = argc > 2 ? argv[2] : "";
    feed_loader *L = NULL;
    char err[512];
    if (make_loader(argv[1], extra, "host", &L, err, sizeof err) != FEED_OK) {
        fprintf(stderr, "mpi_shards: rank %d: %s\n", rank, err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    feed_stats st = {.struct_size = sizeof st};
    feed_loader_stats(L, &st);
    int bad = 0;
    if ((int)st.rank != rank || (int)st.world_size != world || strcmp(st.launcher, "openmpi")) {
        fprintf(stderr, "mpi_shards: MPI rank %d of %d, but the loader took rank %u of %u from '%s'\n", rank,
                world, st.rank, st.world_size, st.launcher);
        bad = 1;
    }
    const uint64_t n = feed_loader_dataset_size(L);
    const uint64_t per_epoch = feed_loader_samples_per_epoch(L);

    uint64_t *mine = malloc(EPOCHS * per_epoch * sizeof *mine);
    int64_t counts[EPOCHS][2] = {{0}};
    for (int e = 0; e < EPOCHS; e++) {
        feed_batch b = {.struct_size = sizeof b};
        feed_status s;
        while ((s = feed_loader_next(L, &b, -1)) == FEED_OK || s == FEED_E_INTERRUPTED) {
            if (s != FEED_OK)
                continue; /* a signal handler ran while next() waited */
            for (uint32_t i = 0; i < b.count && (uint64_t)counts[e][1] < per_epoch; i++)
                mine[e * per_epoch + (uint64_t)counts[e][1]++] = b.sample_ids[i];
            counts[e][0]++;
            feed_batch_release(L, &b, NULL);
        }
        if (s != FEED_END_OF_EPOCH) {
            fprintf(stderr, "mpi_shards: rank %d: %s: %s\n", rank, feed_status_name(s),
                    feed_loader_last_error(L));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    feed_loader_destroy(L);

    struct device_note dn;
    device_note(argv[1], extra, &dn);

    int64_t *all_counts = rank == 0 ? malloc(sizeof(int64_t) * 2 * (size_t)world) : NULL;
    uint64_t *all_ids = rank == 0 ? malloc(sizeof(uint64_t) * 2 * (n + (uint64_t)world) * EPOCHS) : NULL;
    int *rcounts = rank == 0 ? malloc(sizeof(int) * (size_t)world) : NULL;
    int *displs = rank == 0 ? malloc(sizeof(int) * (size_t)world) : NULL;
    struct device_note *notes = rank == 0 ? malloc(sizeof *notes * (size_t)world) : NULL;
    if (rank == 0)
        printf("mpi_shards: %d ranks, %" PRIu64 " samples, %d epochs\n", world, n, EPOCHS);
    for (int e = 0; e < EPOCHS; e++) {
        MPI_Gather(counts[e], 2, MPI_INT64_T, all_counts, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
        if (rank == 0) /* Gatherv: a rank with a different count must not corrupt the rest */
            for (int r = 0, at = 0; r < world; r++) {
                rcounts[r] = (int)all_counts[2 * r + 1];
                displs[r] = at;
                at += rcounts[r];
            }
        MPI_Gatherv(mine + (size_t)e * per_epoch, (int)counts[e][1], MPI_UINT64_T,
                    rank == 0 ? all_ids + (size_t)e * 2 * (n + (uint64_t)world) : NULL, rcounts, displs,
                    MPI_UINT64_T, 0, MPI_COMM_WORLD);
        if (rank == 0)
            bad |= check_epoch(e, all_counts, all_ids + (size_t)e * 2 * (n + (uint64_t)world), world, n);
    }
    if (rank == 0 && n > 8 && !memcmp(all_ids, all_ids + 2 * (n + (uint64_t)world), n * sizeof *all_ids)) {
        printf("mpi_shards: epochs 0 and 1 came in the same order\n");
        bad = 1;
    }
    MPI_Gather(&dn, sizeof dn, MPI_BYTE, notes, sizeof dn, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        bad |= check_devices(notes, world);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_shards: %s\n", bad ? "FAILED" : "ok");
    free(mine), free(all_counts), free(all_ids), free(rcounts), free(displs), free(notes);
    MPI_Finalize();
    return bad ? 1 : 0;
}

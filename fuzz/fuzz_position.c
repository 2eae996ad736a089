/*
 * fuzz_position.c - resuming: feed_loader_seek(), feed_loader_seek_samples()
 * and the positions with untrusted positions (a checkpoint's "epoch", "batch"
 * and "consumed", which the Python state_dict passes through as plain
 * integers: no bytes are parsed), mixed with next and release, against a
 * model of the schedule.
 *
 * Two small loaders live for the whole run (created on the first input):
 * unlimited epochs with a short last batch (10 samples, batches of 3: 4 a
 * epoch), and epochs=2 from start_epoch=5 with drop_last (3 a epoch); one
 * worker each, prefetch 2. Each input first seeks both back to their start,
 * then runs up to FZ_MAX_OPS operations, one byte each (plus arguments):
 *   bits 0-1: 0 next + release, 1 next and hold, 2 release all, 3 seek;
 *   bit 2: which loader; bit 3 with a seek: seek_samples. Seek reads an
 *   epoch byte and a batch (or sample position) byte (bit 7 set: eight raw
 *   little-endian bytes follow instead); epochs are small, near the start,
 *   or near UINT64_MAX; batches run one past the end, positions two.
 * Properties: every status is the model's (OK, END_OF_EPOCH once after an
 * epoch's last batch, END_OF_DATA past the last epoch, BUSY with prefetch
 * batches held or for the batch prefetch places after a held one, INVALID
 * for a batch or sample position past the epoch; END_OF_EPOCH first after a
 * seek to a part of an epoch that makes no batch); a batch has the model's
 * epoch, index and count, in-range ids and labels; both positions are the
 * model's after every operation; a sample position delivered twice in one
 * input gives the same sample ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "test_image_util.h"

#define FZ_SAMPLES 10u
#define FZ_BATCH 3u
#define FZ_PREFETCH 2u
#define FZ_MAX_OPS 48
#define FZ_MEMO 64

typedef struct model {
    feed_loader *L;
    uint64_t start, last; /* first epoch; first epoch not delivered (if limited) */
    int limited;          /* option epochs > 0 */
    uint64_t nb;          /* batches an epoch */
    uint64_t e, pstart, k; /* position: batch k of epoch e's part from sample pstart */
    int eoe;              /* next() owes an END_OF_EPOCH */
    int ended;            /* a seek past the last epoch (its epoch may wrap to 0 after) */
    uint64_t seq;         /* batches delivered since the last seek */
    feed_batch held[FZ_PREFETCH];
    uint64_t held_seq[FZ_PREFETCH];
    uint32_t nheld;
} model;

static model M[2];
static char dir[PATH_MAX];
static struct {
    int which;
    uint64_t e, pos, ids_hash;
} memo[FZ_MEMO];
static int nmemo;

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)flag, (void)f;
    return remove(p);
}

static void teardown(void) __attribute__((destructor));
static void teardown(void)
{
    for (int i = 0; i < 2; i++) {
        feed_loader_destroy(M[i].L);
        M[i].L = NULL;
    }
    if (dir[0])
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static feed_loader *make_loader(uint32_t epochs, uint32_t start, uint32_t drop_last)
{
    feed_options o;
    char err[1024];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", dir);
    o.batch_size = FZ_BATCH, o.workers = 1, o.prefetch = FZ_PREFETCH;
    o.height = o.width = 8, o.augment = FEED_AUGMENT_NONE;
    o.epochs = epochs, o.start_epoch = start, o.drop_last = drop_last, o.seed = 3;
    snprintf(o.device, sizeof o.device, "host");
    feed_loader *L = NULL;
    feed_status st = feed_loader_create(&L, &o, err, sizeof err);
    FZ_CHECK(st == FEED_OK, "create: %s (FEED_WORKER=%s)", err, getenv("FEED_WORKER"));
    return L;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!getenv("FEED_WORKER"))
        setenv("FEED_WORKER", FZ_WORKER, 0); /* the build's tests/feed-worker-test */
    const char *tmp = getenv("FEED_TEST_TMP");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    mkdir(tmp, 0755);
    snprintf(dir, sizeof dir, "%s/fuzz-position-XXXXXX", tmp);
    FZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    uint8_t *rgb = ti_pixels(8, 8, 1);
    size_t len;
    uint8_t *jpeg = ti_jpeg(rgb, 8, 8, TI_444, 90, 0, &len);
    for (uint32_t i = 0; i < FZ_SAMPLES; i++) {
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/c%u", dir, i % 2);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/c%u/%u.jpg", dir, i % 2, i);
        FILE *f = fopen(p, "wb");
        FZ_CHECK(f && fwrite(jpeg, 1, len, f) == len && fclose(f) == 0, "writing %s", p);
    }
    free(rgb);
    free(jpeg);
    M[0] = (model){.L = make_loader(0, 0, 0), .start = 0, .nb = 4};
    M[1] = (model){.L = make_loader(2, 5, 1), .start = 5, .last = 7, .limited = 1, .nb = 3};
    for (int i = 0; i < 2; i++)
        FZ_CHECK(feed_loader_batches_per_epoch(M[i].L) == M[i].nb, "loader %d: %llu batches", i,
                 (unsigned long long)feed_loader_batches_per_epoch(M[i].L));
    return 0;
}

/* One rank: a part from sample start has n - start samples (drop_last: its
 * whole batches). */
static uint64_t part_batches(const model *m, uint64_t start)
{
    uint64_t left = start < FZ_SAMPLES ? FZ_SAMPLES - start : 0;
    return m->limited ? left / FZ_BATCH : (left + FZ_BATCH - 1) / FZ_BATCH; /* limited: drop_last */
}

static uint64_t consumed(const model *m)
{
    return m->pstart + m->k * FZ_BATCH;
}

static void check_position(const model *m, int which)
{
    uint64_t e, b, c;
    FZ_CHECK(feed_loader_position(m->L, &e, &b) == FEED_OK, "position");
    FZ_CHECK(e == m->e && b == consumed(m) / FZ_BATCH, "loader %d at (%llu, %llu), model (%llu, %llu)",
             which, (unsigned long long)e, (unsigned long long)b, (unsigned long long)m->e,
             (unsigned long long)(consumed(m) / FZ_BATCH));
    FZ_CHECK(feed_loader_position_samples(m->L, &e, &c) == FEED_OK, "position_samples");
    FZ_CHECK(e == m->e && c == consumed(m), "loader %d at sample (%llu, %llu), model (%llu, %llu)",
             which, (unsigned long long)e, (unsigned long long)c, (unsigned long long)m->e,
             (unsigned long long)consumed(m));
}

/* Goes to the part of epoch e from sample start (an empty part: its end). */
static void model_go(model *m, uint64_t e, uint64_t start)
{
    m->e = e, m->pstart = start, m->k = 0, m->eoe = 0;
    m->seq = 0;
    m->ended = m->limited && e >= m->last;
    if (part_batches(m, start) == 0) /* END_OF_EPOCH first, then e + 1 */
        m->e = e + 1, m->pstart = 0, m->eoe = 1;
}

static void release_all(model *m)
{
    for (uint32_t i = 0; i < m->nheld; i++)
        FZ_CHECK(feed_batch_release(m->L, &m->held[i], NULL) == FEED_OK, "release: %s",
                 feed_loader_last_error(m->L));
    m->nheld = 0;
}

static void do_next(model *m, int which, int hold)
{
    feed_batch bt = {.struct_size = sizeof bt};
    feed_status st = feed_loader_next(m->L, &bt, 30000);
    int blocked = 0; /* a held batch has this one's buffer */
    for (uint32_t i = 0; i < m->nheld; i++)
        blocked |= m->seq - m->held_seq[i] >= FZ_PREFETCH;
    feed_status want = m->eoe ? FEED_END_OF_EPOCH
                       : m->limited && (m->e >= m->last || m->ended) ? FEED_END_OF_DATA
                       : m->nheld >= FZ_PREFETCH || blocked ? FEED_E_BUSY : FEED_OK;
    FZ_CHECK(st == want, "loader %d at (%llu, %llu): next %s, model %s (%s)", which,
             (unsigned long long)m->e, (unsigned long long)consumed(m), feed_status_name(st),
             feed_status_name(want), feed_loader_last_error(m->L));
    if (st == FEED_END_OF_EPOCH)
        m->eoe = 0;
    if (st != FEED_OK)
        return;
    uint64_t pos = consumed(m), left = FZ_SAMPLES - pos;
    uint32_t count = left < FZ_BATCH ? (uint32_t)left : FZ_BATCH;
    FZ_CHECK(bt.epoch == m->e && bt.index == pos / FZ_BATCH && bt.count == count,
             "loader %d: batch (%llu, %llu) of %u, model (%llu, %llu) of %u", which,
             (unsigned long long)bt.epoch, (unsigned long long)bt.index, bt.count,
             (unsigned long long)m->e, (unsigned long long)(pos / FZ_BATCH), count);
    uint64_t hash = 1469598103934665603ull;
    for (uint32_t i = 0; i < bt.count; i++) {
        FZ_CHECK(bt.sample_ids[i] < FZ_SAMPLES && bt.labels[i] == (bt.sample_ids[i] >= FZ_SAMPLES / 2) &&
                     !(bt.flags[i] & FEED_SAMPLE_REPLACED),
                 "sample %u: id %llu label %d flags %u", i, (unsigned long long)bt.sample_ids[i],
                 bt.labels[i], bt.flags[i]);
        hash = (hash ^ bt.sample_ids[i]) * 1099511628211ull;
    }
    int seen = 0;
    for (int i = 0; i < nmemo; i++)
        if (memo[i].which == which && memo[i].e == m->e && memo[i].pos == pos) {
            FZ_CHECK(memo[i].ids_hash == hash, "loader %d: (%llu, %llu) came back with other samples",
                     which, (unsigned long long)m->e, (unsigned long long)pos);
            seen = 1;
        }
    if (!seen && nmemo < FZ_MEMO)
        memo[nmemo++] = (typeof(memo[0])){which, m->e, pos, hash};
    if (++m->k == part_batches(m, m->pstart)) {
        m->k = 0;
        m->pstart = 0;
        m->e++;
        m->eoe = 1;
    }
    if (hold) {
        m->held_seq[m->nheld] = m->seq;
        m->held[m->nheld++] = bt;
    } else {
        FZ_CHECK(feed_batch_release(m->L, &bt, NULL) == FEED_OK, "release");
    }
    m->seq++;
}

static void do_seek(model *m, int which, uint64_t e, uint64_t b)
{
    feed_status st = feed_loader_seek(m->L, e, b);
    feed_status want = b >= m->nb ? FEED_E_INVALID : m->nheld ? FEED_E_BUSY : FEED_OK;
    FZ_CHECK(st == want, "loader %d: seek (%llu, %llu) %s, model %s (%s)", which,
             (unsigned long long)e, (unsigned long long)b, feed_status_name(st),
             feed_status_name(want), feed_loader_last_error(m->L));
    if (st == FEED_OK)
        model_go(m, e, b * FZ_BATCH);
}

static void do_seek_samples(model *m, int which, uint64_t e, uint64_t c)
{
    feed_status st = feed_loader_seek_samples(m->L, e, c);
    feed_status want = c >= FZ_SAMPLES ? FEED_E_INVALID : m->nheld ? FEED_E_BUSY : FEED_OK;
    FZ_CHECK(st == want, "loader %d: seek_samples (%llu, %llu) %s, model %s (%s)", which,
             (unsigned long long)e, (unsigned long long)c, feed_status_name(st),
             feed_status_name(want), feed_loader_last_error(m->L));
    if (st != FEED_OK)
        return;
    uint64_t ce = m->e, cc = consumed(m);
    int stay = ce == e && cc == c; /* already there: the ring is kept, no END_OF_EPOCH owed */
    model_go(m, e, c);
    if (stay)
        m->eoe = 0;
}

static uint64_t take(const uint8_t **p, const uint8_t *end, int raw)
{
    uint64_t v = 0;
    int n = raw ? 8 : 1;
    for (int i = 0; i < n && *p < end; i++)
        v |= (uint64_t)*(*p)++ << (8 * i);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!M[0].L)
        LLVMFuzzerInitialize(NULL, NULL);
    nmemo = 0;
    for (int i = 0; i < 2; i++) {
        do_seek(&M[i], i, M[i].start, 0);
        check_position(&M[i], i);
    }
    const uint8_t *p = data, *end = data + size;
    for (int ops = 0; p < end && ops < FZ_MAX_OPS; ops++) {
        uint8_t op = *p++;
        int which = (op >> 2) & 1;
        model *m = &M[which];
        switch (op & 3) {
        case 0:
        case 1:
            do_next(m, which, op & 1);
            break;
        case 2:
            release_all(m);
            break;
        case 3: {
            uint8_t eb = p < end ? *p++ : 0, bb = p < end ? *p++ : 0;
            uint64_t e = eb & 0x80 ? take(&p, end, 1)
                         : (eb & 0x70) == 0x70 ? UINT64_MAX - (eb & 0x0f)
                         : (eb & 0x60) == 0x60 ? m->start + (eb & 0x0f) - 8
                         : eb & 0x1f;
            if (op & 8) {
                uint64_t c = bb & 0x80 ? take(&p, end, 1) : bb % (FZ_SAMPLES + 2);
                do_seek_samples(m, which, e, c);
            } else {
                uint64_t b = bb & 0x80 ? take(&p, end, 1) : bb % (m->nb + 2);
                do_seek(m, which, e, b);
            }
            break;
        }
        }
        check_position(m, which);
    }
    for (int i = 0; i < 2; i++)
        release_all(&M[i]);
    return 0;
}

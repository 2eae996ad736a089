/* test_index.c - ImageFolder and file-list indexing, good and malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/format.h"
#include "dataset/index.h"
#include "testutil.h"

static char *root;

static void touch(const char *rel)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    char d[4096];
    snprintf(d, sizeof d, "%s", p);
    *strrchr(d, '/') = 0;
    tu_mkdirs(d);
    tu_write(p, "x", 1);
}

static int setup(void **state)
{
    root = tu_mkdtemp("index");
    return 0;
}

static int teardown(void **state)
{
    tu_rmtree(root);
    free(root);
    return 0;
}

/* An ImageFolder index that keeps class folders without images. */
static feed_status build_allow_empty(feed__index *ix, const char *root_dir, char *err, size_t errlen)
{
    feed__index_spec s = {.source = root_dir, .file_list = "", .allow_empty_classes = 1};
    return feed__index_build_spec(ix, &s, err, errlen);
}

static void test_folder(void **state)
{
    /* Classes sorted by name, files sorted, nested folders walked, non-images
     * and dot files skipped, empty class kept (it has a label). */
    touch("tree/zebra/b.jpg");
    touch("tree/zebra/a.JPEG");
    touch("tree/ant/sub/c.jpg");
    touch("tree/ant/x.jpg");
    touch("tree/ant/notes.txt");
    touch("tree/ant/.hidden.jpg");
    char d[4096];
    snprintf(d, sizeof d, "%s/tree/empty", root);
    tu_mkdirs(d);
    snprintf(d, sizeof d, "%s/tree", root);
    feed__index ix;
    char err[512];
    /* by default a class folder without images is an error naming it, as
     * torchvision's ImageFolder raises; allow_empty_classes keeps it */
    assert_int_equal(feed__index_build(&ix, d, "", err, sizeof err), FEED_E_DATASET);
    if (!strstr(err, "class folder 'empty' has no images") || !strstr(err, "allow_empty_classes=1"))
        fail_msg("%s", err);
    assert_int_equal(build_allow_empty(&ix, d, err, sizeof err), FEED_OK);
    const feed__index_hdr *h = ix.hdr;
    assert_int_equal(h->count, 4);
    assert_int_equal(h->nclasses, 3);
    assert_string_equal(feed__index_class(h, 0), "ant");
    assert_string_equal(feed__index_class(h, 1), "empty");
    assert_string_equal(feed__index_class(h, 2), "zebra");
    assert_string_equal(feed__index_path(h, 0), "ant/sub/c.jpg");
    assert_int_equal(feed__index_label(h, 0), 0);
    assert_string_equal(feed__index_path(h, 1), "ant/x.jpg");
    assert_string_equal(feed__index_path(h, 2), "zebra/a.JPEG");
    assert_int_equal(feed__index_label(h, 2), 2);
    assert_string_equal(feed__index_path(h, 3), "zebra/b.jpg");
    /* Shared copy reads the same. */
    assert_int_equal(feed__index_share(&ix, err, sizeof err), FEED_OK);
    feed__index ro;
    assert_int_equal(feed__index_attach(&ro, ix.fd, err, sizeof err), FEED_OK);
    assert_string_equal(feed__index_path(ro.hdr, 3), "zebra/b.jpg");
    assert_int_equal(feed__index_label(ro.hdr, 3), 2);
    feed__index_free(&ro);
    feed__index_free(&ix);
}

/* Every supported extension is taken; files of other extensions in class
 * folders are counted and the first few named (dot files and files at the
 * root are neither). */
static void test_folder_formats_skipped(void **state)
{
    touch("fmt/a/1.png");
    touch("fmt/a/2.WebP");
    touch("fmt/a/3.jpe");
    touch("fmt/a/4.gif");
    touch("fmt/a/5.txt");
    touch("fmt/a/.6.bmp");
    touch("fmt/b/deep/7.tiff");
    touch("fmt/b/8.jpg");
    for (int i = 0; i < 6; i++) {
        char n[64];
        snprintf(n, sizeof n, "fmt/c/x%d.heic", i);
        touch(n);
    }
    touch("fmt/README.md");
    char d[4096], err[512];
    snprintf(d, sizeof d, "%s/fmt", root);
    feed__index ix;
    assert_int_equal(build_allow_empty(&ix, d, err, sizeof err), FEED_OK); /* c: only .heic */
    assert_int_equal(ix.hdr->count, 4);
    assert_string_equal(feed__index_path(ix.hdr, 0), "a/1.png");
    assert_string_equal(feed__index_path(ix.hdr, 1), "a/2.WebP");
    assert_string_equal(feed__index_path(ix.hdr, 2), "a/3.jpe");
    assert_string_equal(feed__index_path(ix.hdr, 3), "b/8.jpg");
    assert_int_equal(ix.skipped, 9);
    assert_string_equal(ix.skipped_names, "a/4.gif, a/5.txt, b/deep/7.tiff, c/x0.heic, c/x1.heic");
    feed__index_free(&ix);
    /* a folder of only other files: the error says what was skipped */
    snprintf(d, sizeof d, "%s/fmt_only", root);
    touch("fmt_only/k/a.gif");
    assert_int_equal(feed__index_build(&ix, d, "", err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "has no samples"));
    assert_non_null(strstr(err, "skipped 1 files"));
    assert_non_null(strstr(err, "k/a.gif"));
    (void)state;
}

static void test_list(void **state)
{
    char list[4096];
    snprintf(list, sizeof list, "%s/files.txt", root);
    const char *text = "# comment\n"
                       "a/one.jpg 3\n"
                       "\n"
                       "  b/with space.jpg   0  \n"
                       "/abs/path.jpg 7\r\n";
    tu_write(list, text, strlen(text));
    feed__index ix;
    char err[512];
    assert_int_equal(feed__index_build(&ix, "", list, err, sizeof err), FEED_OK);
    assert_int_equal(ix.hdr->count, 3);
    assert_int_equal(ix.hdr->nclasses, 8);
    assert_string_equal(feed__index_path(ix.hdr, 0), "a/one.jpg");
    assert_int_equal(feed__index_label(ix.hdr, 0), 3);
    assert_string_equal(feed__index_path(ix.hdr, 1), "b/with space.jpg");
    assert_int_equal(feed__index_label(ix.hdr, 1), 0);
    assert_string_equal(feed__index_path(ix.hdr, 2), "/abs/path.jpg");
    char rp[4096];
    assert_non_null(realpath(root, rp));
    assert_string_equal(ix.hdr->root, rp); /* relative to the list's folder */
    feed__index_free(&ix);
    /* A list given as source works the same. */
    assert_int_equal(feed__index_build(&ix, list, "", err, sizeof err), FEED_OK);
    assert_int_equal(ix.hdr->count, 3);
    feed__index_free(&ix);
}

static void expect_list_error(const char *text, const char *needle)
{
    char list[4096];
    snprintf(list, sizeof list, "%s/bad.txt", root);
    tu_write(list, text, strlen(text));
    feed__index ix;
    char err[512] = "";
    assert_int_equal(feed__index_build(&ix, "", list, err, sizeof err), FEED_E_DATASET);
    if (!strstr(err, needle))
        fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_errors(void **state)
{
    expect_list_error("a.jpg 1\nb.jpg\n", "bad.txt:2:");
    expect_list_error("a.jpg 1\nb.jpg x\n", "bad.txt:2: label 'x'");
    expect_list_error("a.jpg -1\n", "bad.txt:1: label '-1'");
    expect_list_error("# nothing\n\n", "no samples");
    feed__index ix;
    char err[512] = "";
    assert_int_equal(feed__index_build(&ix, "/nonexistent/dir", "", err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "/nonexistent/dir"));
    assert_int_equal(feed__index_build(&ix, "", "/nonexistent/list.txt", err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "/nonexistent/list.txt"));
    char d[4096];
    snprintf(d, sizeof d, "%s/noclasses", root);
    tu_mkdirs(d);
    assert_int_equal(feed__index_build(&ix, d, "", err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "no class folders"));
    snprintf(d, sizeof d, "%s/emptyclasses/a", root);
    tu_mkdirs(d);
    snprintf(d, sizeof d, "%s/emptyclasses", root);
    assert_int_equal(feed__index_build(&ix, d, "", err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "no samples"));
}

/* A label at the int32 limit indexes in memory proportional to the lines
 * (no table sized by the largest label; 1 + INT32_MAX does not overflow),
 * and shares and attaches like any other; one past it, or far past it, is a
 * clear error naming the file, the line and the range. */
static void test_label_range(void **state)
{
    char list[4096];
    snprintf(list, sizeof list, "%s/big.txt", root);
    const char *text = "a.jpg 2147483647\n";
    tu_write(list, text, strlen(text));
    feed__index ix;
    char err[512] = "";
    assert_int_equal(feed__index_build(&ix, "", list, err, sizeof err), FEED_OK);
    assert_int_equal(ix.hdr->count, 1);
    assert_int_equal(ix.hdr->nclasses, 2147483648u);
    assert_int_equal(ix.hdr->named_classes, 0);
    assert_int_equal(feed__index_label(ix.hdr, 0), 2147483647);
    assert_true(ix.hdr->total_bytes <= 16384); /* header, one entry, "a.jpg" */
    assert_int_equal(feed__index_share(&ix, err, sizeof err), FEED_OK);
    assert_int_equal(feed__index_label(ix.hdr, 0), 2147483647);
    feed__index_free(&ix);

    /* many distinct sparse labels: still proportional to the lines */
    snprintf(list, sizeof list, "%s/sparse.txt", root);
    FILE *f = fopen(list, "w");
    assert_non_null(f);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "img/%04d.jpg %d\n", i, 2147483647 - i * 1000003);
    fclose(f);
    assert_int_equal(feed__index_build(&ix, "", list, err, sizeof err), FEED_OK);
    assert_int_equal(ix.hdr->count, 1000);
    assert_int_equal(ix.hdr->nclasses, 2147483648u);
    assert_true(ix.hdr->total_bytes <= 64 * 1024);
    feed__index_free(&ix);

    expect_list_error("a.jpg 1\nb.jpg 2147483648\n",
                      "bad.txt:2: label 2147483648 is out of range: labels are 0..2147483647");
    expect_list_error("a.jpg 99999999999999999999999\n", "bad.txt:1: label 99999999999999999999999 is out of range");
    expect_list_error("a.jpg 0x10\n", "bad.txt:1: label '0x10' is not a non-negative integer");
    expect_list_error("a.jpg +\n", "label '+' is not");
    /* a label with a leading + is an integer, as before */
    snprintf(list, sizeof list, "%s/plus.txt", root);
    tu_write(list, "a.jpg +5\n", 9);
    assert_int_equal(feed__index_build(&ix, "", list, err, sizeof err), FEED_OK);
    assert_int_equal(ix.hdr->nclasses, 6);
    feed__index_free(&ix);
}

/* An image given where a file list is expected: named as an image, its
 * first bytes escaped, never printed raw; binary junk in a list is escaped
 * too, and UTF-8 paths are shown as they are. */
static void expect_source_error(const void *data, size_t len, const char *needle1, const char *needle2)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/photo.jpg", root);
    tu_write(p, data, len);
    feed__index ix;
    char err[1024] = "";
    assert_int_equal(feed__index_build(&ix, p, "", err, sizeof err), FEED_E_DATASET);
    if (!strstr(err, needle1) || !strstr(err, needle2))
        fail_msg("error '%s' lacks '%s' or '%s'", err, needle1, needle2);
    for (const char *c = err; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            fail_msg("error holds the raw byte 0x%02x: '%s'", (unsigned char)*c, err);
}

static void test_image_as_source(void **state)
{
    static const unsigned char jpg[] = {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00,
                                        0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, '\n'};
    expect_source_error(jpg, sizeof jpg, "this looks like an image, not a file list", "(JPEG)");
    expect_source_error(jpg, sizeof jpg, "photo.jpg starts with \\xff\\xd8\\xff\\xe0", "ImageFolder");
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    expect_source_error(png, sizeof png, "\\x89PNG\\x0d\\x0a\\x1a\\x0a (PNG)", "this looks like an image");
    expect_source_error("GIF89a\x01\x00\x01\x00", 10, "(GIF)", "this looks like an image");
    expect_source_error("RIFF\x24\x00\x00\x00WEBPVP8 ", 16, "(WebP)", "this looks like an image");
    /* not an image, but binary: bytes escaped, the line and a hint given */
    static const unsigned char junk[] = {0x01, 0x02, 0x1b, '[', '3', '1', 'm', ' ', 0x00, 'x', '\n'};
    expect_source_error(junk, sizeof junk, "photo.jpg:1: a NUL byte in '\\x01\\x02\\x1b[31m \\x00x",
                        "not a text file list");
    static const unsigned char ctl[] = {'a', 0x1b, ']', '0', ';', 'x', 0x07, '\n'};
    expect_source_error(ctl, sizeof ctl, "expected 'path label', got 'a\\x1b]0;x\\x07'", "photo.jpg:1:");
    /* a list whose path is UTF-8 is quoted as text; a bad label escaped */
    expect_source_error("caf\xc3\xa9/\xe7\x8c\xab.jpg \xff\n", 15, "label '\\xff' is not",
                        "photo.jpg:1:");
    expect_source_error("caf\xc3\xa9.jpg\n", 10, "got 'caf\xc3\xa9.jpg'", "photo.jpg:1:");
    /* a text list that begins like "BM" is still a list */
    char p[4096];
    snprintf(p, sizeof p, "%s/bm.txt", root);
    tu_write(p, "BMW/car.jpg 1\n", 14);
    feed__index ix;
    char err[512];
    assert_int_equal(feed__index_build(&ix, p, "", err, sizeof err), FEED_OK);
    feed__index_free(&ix);
}

/* The magic table decode/ and dataset/filelist.c share (common/format.h). */
static void test_image_format(void **state)
{
    static const struct {
        const char *bytes;
        size_t n;
        const char *name;
    } cases[] = {
        {"\xff\xd8\xff\xdb", 4, "JPEG"},
        {"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16, "PNG"},
        {"GIF87a", 6, "GIF"},
        {"RIFF\0\0\0\0WEBP", 12, "WebP"},
        {"BM\x36\0\x0c\0\0\0\0\0", 10, "BMP"},
        {"II*\0", 4, "TIFF"},
        {"MM\0*", 4, "TIFF"},
        {"\0\0\0\x18" "ftypheic", 12, "HEIF"},
        {"\0\0\0\x18" "ftypmif1", 12, "HEIF"},
        {"\0\0\0\x1c" "ftypavif", 12, "AVIF"},
        {"\xff\x0a", 2, "JPEG XL"},
        {"\0\0\0\x0cJXL \r\n\x87\n", 12, "JPEG XL"},
        {"BMW/a.jpg 1\n", 12, NULL},
        {"\0\0\0\x18" "ftypisom", 12, NULL}, /* MP4 */
        {"\xff\xd8", 2, NULL},               /* too short to tell */
        {"", 0, NULL},
        {"a.jpg 3\n", 8, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = feed__image_format((const uint8_t *)cases[i].bytes, cases[i].n);
        if (cases[i].name ? !got || strcmp(got, cases[i].name) : got != NULL)
            fail_msg("case %zu: got %s, want %s", i, got ? got : "NULL",
                     cases[i].name ? cases[i].name : "NULL");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folder),
        cmocka_unit_test(test_folder_formats_skipped),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_label_range),
        cmocka_unit_test(test_image_as_source),
        cmocka_unit_test(test_image_format),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

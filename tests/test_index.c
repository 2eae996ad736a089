/* test_index.c - ImageFolder and file-list indexing, good and malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "index.h"
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
    assert_int_equal(feed__index_build(&ix, d, "", err, sizeof err), FEED_OK);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folder),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

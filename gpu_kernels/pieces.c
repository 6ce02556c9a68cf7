/* A chain's alignments: where its anchors and gaps are cut into pieces (align.py's pieces has the
 * steps; docs/DEFINITIONS.md, "What an alignment is", step 5, the rule; tests/oracle_align.py the
 * oracle). One compiled scan for both backends: the device's pieces come here and go back, so the
 * cut is the same on either.
 *
 * The anchors come in chain order. After anchor i lies the gap to anchor i + 1, or a break (`cut`: the
 * chain ends there, or the gap's fill scored under -zdrop). Between breaks, a run of anchors and gaps
 * is scored again with the drop scores (`drift`: an anchor's columns count 1 each, a gap's drift
 * says what its columns add) and cut where that running score falls more than zdrop, plus
 * drop_gap for each base the diagonal moved since, below its best (a Z-drop, as minimap2 cuts
 * an alignment): the piece ends at its best anchor, and the next run starts at the anchor where the
 * drop was seen. A piece that starts after such a cut begins after its lowest point (its best-scoring
 * stretch); a piece ends at its best anchor only where such a cut ends it. Anchors between pieces
 * belong to none. Integers throughout, so the cut is exact. */
#include "cpu.h"

static int64_t span(int64_t v) { return v < 0 ? -v : v; }

/* Pieces as [first, last] anchor ranges; piece[i] the piece of anchor i (-1: none). Returns the count. */
static int64_t split(const int64_t *alen, const uint8_t *cut, const int64_t *drift, const int64_t *shift,
                     int64_t n, int64_t zdrop, int64_t drop_gap, int64_t *piece, int64_t *first, int64_t *last) {
    int64_t count = 0, i = 0;
    int restart = 0;  /* the run starts where a drop cut the one before */
    for (int64_t k = 0; k < n; k++)
        piece[k] = -1;
    while (i < n) {
        if (i > 0 && cut[i - 1])
            restart = 0;
        int64_t s = i, j = i, score = alen[i], low = 0, low_at = i;
        int64_t best = score, best_at = i, best_low = i, best_score = score, diagonal = 0, best_diagonal = 0;
        int64_t begin, end;
        for (;;) {
            if (cut[j] || j == n - 1) {
                begin = restart ? low_at : s;
                end = j;
                i = j + 1;
                break;
            }
            int64_t before = score + drift[j];  /* the score up to the next anchor */
            diagonal += shift[j];
            j++;
            if (before < low) {
                low = before;
                low_at = j;
            }
            score = before + alen[j];
            if (score - low > best) {
                best = score - low;
                best_at = j;
                best_low = low_at;
                best_score = score;
                best_diagonal = diagonal;
            } else if (best_score - score > zdrop + drop_gap * span(diagonal - best_diagonal)) {
                begin = restart ? best_low : s;
                end = best_at;
                i = j;
                restart = 1;
                break;
            }
        }
        first[count] = begin;
        last[count] = end;
        for (int64_t k = begin; k <= end; k++)
            piece[k] = count;
        count++;
    }
    return count;
}

PyObject *py_split_pieces(PyObject *self, PyObject *args) {
    Py_buffer b[7];
    long long zdrop, drop_gap;
    if (!PyArg_ParseTuple(args, "y*y*y*y*LLw*w*w*", &b[0], &b[1], &b[2], &b[3], &zdrop, &drop_gap, &b[4], &b[5],
                          &b[6]))
        return NULL;
    const int64_t n = b[0].len / 8;
    int ok = check_items(&b[1], "split_pieces", 1, n) && check_items(&b[2], "split_pieces", 8, n) &&
             check_items(&b[3], "split_pieces", 8, n) && check_items(&b[4], "split_pieces", 8, n) &&
             check_items(&b[5], "split_pieces", 8, n) && check_items(&b[6], "split_pieces", 8, n);
    if (!ok)
        return release_buffers(b, 7, 0);
    int64_t count;
    Py_BEGIN_ALLOW_THREADS
    count = split(b[0].buf, b[1].buf, b[2].buf, b[3].buf, n, zdrop, drop_gap, b[4].buf, b[5].buf, b[6].buf);
    Py_END_ALLOW_THREADS
    for (int k = 0; k < 7; k++)
        PyBuffer_Release(&b[k]);
    return PyLong_FromLongLong(count);
}

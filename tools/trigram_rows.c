/* Rows of logits with a real language's shape, from an English trigram
 * model (Debian's pocketsphinx-en-us, read with libsphinxbase): a short
 * prompt, then greedy continuation (a new sentence after </s>), one row
 * per step; row t holds
 * ln p(w | the two words before) for every word w of the model, a valid row
 * of logits (natural-log probabilities), written as an .npy file of
 * float32, shape (steps, V).
 *
 *     trigram_rows MODEL OUT.npy STEPS WORD...
 *
 * e.g. trigram_rows /usr/share/pocketsphinx/model/en-us/en-us.lm.bin rows.npy 32 the meaning of
 * Prints the continuation on standard output. Exit 0 on success, 1 when the
 * model cannot be read or a prompt word is not in it, 2 on bad usage, 3 when
 * the output cannot be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>

/* numpy's format 1.0: magic, version, header length, then a dict padded
 * with spaces to a multiple of 64 bytes, ending in a newline. */
static int write_npy_header(FILE* out, long rows, long cols) {
  char dict[128];
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (%ld, %ld), }", rows, cols);
  if (n < 0 || n > 116) return -1;
  int total = ((10 + n + 1 + 63) / 64) * 64;
  int len = total - 10;
  memset(dict + n, ' ', (size_t)(len - n - 1));
  dict[len - 1] = '\n';
  unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff),
                            (unsigned char)(len >> 8)};
  return fwrite(head, 1, 10, out) == 10 && fwrite(dict, 1, (size_t)len, out) == (size_t)len ? 0 : -1;
}

static int little_endian(void) {
  const unsigned one = 1;
  return *(const unsigned char*)&one == 1;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: trigram_rows MODEL OUT.npy STEPS WORD...\n");
    return 2;
  }
  char* end = NULL;
  errno = 0;
  long steps = strtol(argv[3], &end, 10);
  if (errno != 0 || *end != '\0' || steps < 1 || steps > 100000) {
    fprintf(stderr, "trigram_rows: STEPS = %s: must be an integer in [1, 100000]\n", argv[3]);
    return 2;
  }
  if (!little_endian()) {
    fprintf(stderr, "trigram_rows: writes '<f4' rows from a little-endian host only\n");
    return 2;
  }
  err_set_logfp(NULL); /* sphinxbase's progress messages */
  logmath_t* lmath = logmath_init(1.0001, 0, 0);
  ngram_model_t* lm = ngram_model_read(NULL, argv[1], NGRAM_AUTO, lmath);
  if (lm == NULL) {
    fprintf(stderr, "trigram_rows: cannot read the model %s\n", argv[1]);
    return 1;
  }
  const long vocab = (long)ngram_model_get_counts(lm)[0];
  /* The history, most recent word first, as ngram_ng_prob takes it. */
  const int32 start_of_sentence = ngram_wid(lm, "<s>");
  const int32 end_of_sentence = ngram_wid(lm, "</s>");
  int32 history[2] = {start_of_sentence, -1};
  int32 n_hist = 1;
  for (int i = 4; i < argc; ++i) {
    int32 wid = ngram_wid(lm, argv[i]);
    if (wid == ngram_unknown_wid(lm)) {
      fprintf(stderr, "trigram_rows: the word '%s' is not in the model\n", argv[i]);
      return 1;
    }
    history[1] = history[0];
    history[0] = wid;
    n_hist = 2;
    printf("%s ", argv[i]);
  }
  float* row = malloc((size_t)vocab * sizeof *row);
  FILE* out = fopen(argv[2], "wb");
  if (row == NULL || out == NULL || write_npy_header(out, steps, vocab) != 0) {
    fprintf(stderr, "trigram_rows: cannot write %s\n", argv[2]);
    return 3;
  }
  for (long t = 0; t < steps; ++t) {
    int32 best = 0;
    for (int32 w = 0; w < (int32)vocab; ++w) {
      int32 used = 0;
      row[w] = (float)logmath_log_to_ln(lmath, ngram_ng_prob(lm, w, history, n_hist, &used));
      if (row[w] > row[best]) best = w;
    }
    if (fwrite(row, sizeof *row, (size_t)vocab, out) != (size_t)vocab) {
      fprintf(stderr, "trigram_rows: cannot write %s\n", argv[2]);
      return 3;
    }
    printf("%s ", ngram_word(lm, best));
    if (best == end_of_sentence) { /* the next sentence starts */
      history[0] = start_of_sentence;
      n_hist = 1;
    } else {
      history[1] = history[0];
      history[0] = best;
      n_hist = 2;
    }
  }
  printf("\n");
  if (fclose(out) != 0) {
    fprintf(stderr, "trigram_rows: cannot write %s\n", argv[2]);
    return 3;
  }
  free(row);
  ngram_model_free(lm);
  logmath_free(lmath);
  return 0;
}

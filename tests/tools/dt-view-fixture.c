/*
 * dt-view-fixture N OUT.html [THREADS]: the view page of rq_fixture(N)
 * (N requests of three hosts each, see tests/unit/rq-fixture.h), for the
 * browser test (tests/collector/t-view.sh). With THREADS, each host
 * serves the requests from a pool of that many threads (request k on
 * thread k % THREADS) instead of a thread per request: few lanes, each
 * with many spans, the hardest case for the page's drawing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rq-fixture.h"
#include "view.h"

/* client[100+k] becomes client[100 + k % threads], and so on. */
static void pool(struct dt_rq_model *m, int threads)
{
	int i;

	for (i = 0; i < m->n_spans; i++) {
		struct dt_rq_span *s = &m->spans[i];

		s->tid = s->pid = s->tid / 100 * 100 + s->request % threads;
	}
}

int main(int argc, char **argv)
{
	struct dt_rq_model *m;
	GError *err = NULL;
	int n, threads = 0, r;
	FILE *f;

	if ((argc != 3 && argc != 4) || (n = atoi(argv[1])) < 1 ||
	    (argc == 4 && (threads = atoi(argv[3])) < 1)) {
		fprintf(stderr, "usage: dt-view-fixture N OUT.html [THREADS]\n");
		return 2;
	}
	f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	m = rq_fixture(n);
	if (threads)
		pool(m, threads);
	r = dt_view_write(m, "fixture <requests> & \"more\"", f, &err);
	if (fclose(f) && !r)
		r = -1;
	if (r && !err)
		g_set_error(&err, DT_ERROR, DT_ERROR_IO, "%s: write error",
			    argv[2]);
	dt_error_print("dt-view-fixture", err);
	dt_rq_model_free(m);
	return r ? 1 : 0;
}

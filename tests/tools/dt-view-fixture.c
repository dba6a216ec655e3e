/*
 * dt-view-fixture N OUT.html: the view page of rq_fixture(N) (N requests
 * of three hosts each, see tests/unit/rq-fixture.h), for the browser
 * test (tests/collector/t-view.sh).
 */
#include <stdio.h>
#include <stdlib.h>

#include "rq-fixture.h"
#include "view.h"

int main(int argc, char **argv)
{
	struct dt_rq_model *m;
	char *err = NULL;
	FILE *f;
	int n, r;

	if (argc != 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: dt-view-fixture N OUT.html\n");
		return 2;
	}
	f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	m = rq_fixture(n);
	r = dt_view_write(m, "fixture <requests> & \"more\"", f, &err);
	if (fclose(f) && !r)
		r = -1;
	if (r)
		fprintf(stderr, "dt-view-fixture: %s\n", err ? err : "write error");
	free(err);
	dt_rq_model_free(m);
	return r ? 1 : 0;
}

/* `hopblas bench`: the driver.  Options, the engine table, one forked child
 * per engine (results come back through a pipe, one line per case), the
 * table on stdout, the CSV and the plot. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "hop.h"
#include "hopblas_cli.h"

void bench_host_cleanup(void);

#ifdef HOP_WITH_OPENCL
static char resident_why[96];
static int resident_state; /* 0 not tried, 1 up, -1 off */

static bool opencl_open(const char *name, char *why, size_t len)
{
  return bench_hopblas_open(name, why, len);
}

static void opencl_run(const char *name, enum bench_mode mode, struct bench_data *d,
                       const struct bench_opts *o, struct bench_result *r)
{
  if (mode == BENCH_HOST) {
    bench_hopblas_run(name, mode, d, o, r);
    return;
  }
  if (resident_state == 0)
    resident_state = bench_resident_open(name, resident_why, sizeof resident_why) ? 1 : -1;
  if (resident_state < 0) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "%s", resident_why);
    return;
  }
  bench_resident_run(name, mode, d, o, r);
}
#endif

const struct bench_engine bench_engines[] = {
  {"hopblas", "hopblas with automatic routing, through cblas_*gemm", {true, false},
   bench_hopblas_open, bench_hopblas_run},
#ifdef HOP_WITH_OPENCL
  {"opencl", "hopblas's OpenCL engine: forced through cblas_*gemm (host), its kernel on device "
             "buffers (resident)", {true, true}, opencl_open, opencl_run},
#endif
  {"cpu", "hopblas's CPU engine, forced through cblas_*gemm", {true, false}, bench_hopblas_open,
   bench_hopblas_run},
  {"videocore", "hopblas's VideoCore IV engine (a Pi 0-3's QPUs), forced through cblas_*gemm", {true, false},
   bench_hopblas_open, bench_hopblas_run},
  {"openblas", "OpenBLAS's cblas_?gemm (s, d, c, z; shgemm where it has one), called directly",
   {true, false}, bench_openblas_open, bench_openblas_run},
#ifdef HOP_WITH_OPENCL
  {"clblast", "CLBlast (libclblast.so.1) on hopblas's OpenCL device: buffers per call (host), "
              "or resident", {true, true}, bench_clblast_open, bench_clblast_run},
#endif
  {"nvblas", "NVBLAS sgemm_, dgemm_, cgemm_, zgemm_ (NVBLAS_LIB, NVBLAS_CONFIG_FILE)", {true, false}, bench_nvblas_open,
   bench_nvblas_run},
  {NULL, NULL, {false, false}, NULL, NULL},
};

struct plan {
  const struct bench_engine *engines[16];
  int nengines;
  struct bench_case shapes[64];
  int nshapes;
  bool dtypes[HOP_DTYPE_COUNT], modes[2], trans[4]; /* trans: NN NT TN TT */
  float alpha, beta;
  struct bench_opts opts;
  const char *csv, *png;
};

static const char *const trans_names[4] = {"NN", "NT", "TN", "TT"};

static int usage(FILE *out, int rc)
{
  fprintf(out,
          "usage: hopblas bench [--sizes N,MxNxK,...] [--engines E,...] [--dtype s,d,c,z,h,sh]\n"
          "                     [--trans NN,NT,TN,TT] [--mode host|resident|both]\n"
          "                     [--alpha A] [--beta B] [--min-time S] [--reps N]\n"
          "                     [--stat median|best]\n"
          "                     [--csv FILE] [--plot FILE.png]\n"
          "Defaults: --sizes 256,512,1024,2048 --engines hopblas,opencl,openblas,clblast\n"
          "          --dtype s --trans NN --mode both --alpha 1 --beta 0 --min-time 0.3 --reps 20\n"
          "          --stat median (best: the fastest call, steadier for calls of microseconds)\n"
          "host: from host memory through the engine's entry point (transfers included);\n"
          "resident: operands already on the device (kernel rate).  Engines:\n");
  for (const struct bench_engine *e = bench_engines; e->name != NULL; e++)
    fprintf(out, "  %-9s %s\n", e->name, e->help);
  return rc;
}

/* Split a comma list; call item() on each; false on the first it refuses. */
static bool each_item(const char *list, bool (*item)(struct plan *, const char *), struct plan *p)
{
  char buf[512];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save))
    if (!item(p, t)) {
      fprintf(stderr, "hopblas bench: '%s' is not understood\n", t);
      return false;
    }
  return true;
}

static bool add_size(struct plan *p, const char *t)
{
  int m, n, k;
  char extra;
  if (sscanf(t, "%dx%dx%d%c", &m, &n, &k, &extra) != 3) {
    if (sscanf(t, "%d%c", &m, &extra) != 1)
      return false;
    n = k = m;
  }
  if (m < 1 || n < 1 || k < 1 || p->nshapes == 64)
    return false;
  p->shapes[p->nshapes++] = (struct bench_case){.m = m, .n = n, .k = k};
  return true;
}

static bool add_engine(struct plan *p, const char *t)
{
  for (const struct bench_engine *e = bench_engines; e->name != NULL; e++)
    if (strcmp(e->name, t) == 0 && p->nengines < 16) {
      p->engines[p->nengines++] = e;
      return true;
    }
  return false;
}

static bool add_dtype(struct plan *p, const char *t)
{
  for (size_t d = 0; d < bench_dtype_count; d++)
    if (strcmp(t, hop_dtype_name(bench_dtypes[d])) == 0)
      return p->dtypes[bench_dtypes[d]] = true;
  return false;
}

static bool add_trans(struct plan *p, const char *t)
{
  for (int i = 0; i < 4; i++)
    if (strcasecmp(t, trans_names[i]) == 0)
      return p->trans[i] = true;
  return false;
}

static bool parse(int argc, char **argv, struct plan *p)
{
  const char *sizes = "256,512,1024,2048", *engines = "hopblas,opencl,openblas,clblast";
  const char *dtypes = "s", *trans = "NN", *mode = "both";
#ifndef HOP_WITH_OPENCL
  engines = "hopblas,openblas";
#endif
  memset(p, 0, sizeof *p);
  p->alpha = 1.0f;
  p->opts = (struct bench_opts){.min_time = 0.3, .max_reps = 20};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
      exit(usage(stdout, 0));
    if (v == NULL)
      return false;
    i++;
    if (strcmp(a, "--sizes") == 0) sizes = v;
    else if (strcmp(a, "--engines") == 0) engines = v;
    else if (strcmp(a, "--dtype") == 0 || strcmp(a, "--dtypes") == 0) dtypes = v;
    else if (strcmp(a, "--trans") == 0) trans = v;
    else if (strcmp(a, "--mode") == 0) mode = v;
    else if (strcmp(a, "--csv") == 0) p->csv = v;
    else if (strcmp(a, "--plot") == 0) p->png = v;
    else if (strcmp(a, "--alpha") == 0) p->alpha = strtof(v, NULL);
    else if (strcmp(a, "--beta") == 0) p->beta = strtof(v, NULL);
    else if (strcmp(a, "--min-time") == 0) p->opts.min_time = strtod(v, NULL);
    else if (strcmp(a, "--reps") == 0) p->opts.max_reps = atoi(v);
    else if (strcmp(a, "--stat") == 0 && (strcmp(v, "best") == 0 || strcmp(v, "median") == 0))
      p->opts.best = strcmp(v, "best") == 0;
    else return false;
  }
  p->modes[BENCH_HOST] = strcmp(mode, "host") == 0 || strcmp(mode, "both") == 0;
  p->modes[BENCH_RESIDENT] = strcmp(mode, "resident") == 0 || strcmp(mode, "both") == 0;
  if (!p->modes[0] && !p->modes[1]) {
    fprintf(stderr, "hopblas bench: --mode host|resident|both\n");
    return false;
  }
  if (p->alpha == 0.0f || p->opts.max_reps < 2 || p->opts.min_time < 0) {
    fprintf(stderr, "hopblas bench: --alpha must not be 0 (nothing to compute), --reps >= 2\n");
    return false;
  }
  return each_item(sizes, add_size, p) && each_item(engines, add_engine, p) &&
         each_item(dtypes, add_dtype, p) && each_item(trans, add_trans, p);
}

/* The child: every case of one engine, one line each into fd. */
static void child(const struct plan *p, const struct bench_engine *e, int fd)
{
  FILE *out = fdopen(fd, "w");
  char why[96] = "";
  bool up = e->open(e->name, why, sizeof why);
  for (int mode = 0; mode < 2; mode++)
    for (size_t di = 0; di < bench_dtype_count; di++)
      for (int t = 0; t < 4; t++)
        for (int s = 0; s < p->nshapes; s++) {
          enum hop_dtype dt = bench_dtypes[di];
          if (!p->modes[mode] || !e->modes[mode] || !p->dtypes[dt] || !p->trans[t])
            continue;
          struct bench_case c = p->shapes[s];
          c.dtype = dt, c.ta = t >= 2, c.tb = t % 2, c.alpha = p->alpha, c.beta = p->beta;
          struct bench_result r = {0};
          struct bench_data d;
          if (!up) {
            r.skipped = true;
            snprintf(r.note, sizeof r.note, "%s", why);
          } else if (!bench_data_make(&d, &c)) {
            r.skipped = true;
            snprintf(r.note, sizeof r.note, "out of host memory");
          } else {
            e->run(e->name, (enum bench_mode)mode, &d, &p->opts, &r);
            bench_data_free(&d);
          }
          for (char *q = r.note; *q; q++) /* one line, no tabs */
            if (*q == '\t' || *q == '\n')
              *q = ' ';
          fprintf(out, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%.9g\t%.3g\t%d\t%d\t%s\n", e->name,
                  mode == BENCH_HOST ? "host" : "resident", hop_dtype_name(dt), trans_names[t],
                  c.m, c.n, c.k, r.seconds, r.max_err, r.within, r.skipped, r.note);
          fflush(out);
        }
  fclose(out);
  bench_host_cleanup();
  _exit(0);
}

static bool parse_row(char *line, struct bench_row *r)
{
  char *f[12];
  int n = 0;
  for (char *save = NULL, *t = strtok_r(line, "\t\n", &save); t != NULL && n < 12;
       t = strtok_r(NULL, "\t\n", &save))
    f[n++] = t;
  if (n < 11)
    return false;
  memset(r, 0, sizeof *r);
  snprintf(r->engine, sizeof r->engine, "%s", f[0]);
  snprintf(r->mode, sizeof r->mode, "%s", f[1]);
  snprintf(r->dtype, sizeof r->dtype, "%s", f[2]);
  snprintf(r->trans, sizeof r->trans, "%s", f[3]);
  r->m = atoi(f[4]), r->n = atoi(f[5]), r->k = atoi(f[6]);
  r->seconds = strtod(f[7], NULL), r->max_err = strtod(f[8], NULL);
  r->within = atoi(f[9]), r->skipped = atoi(f[10]);
  snprintf(r->note, sizeof r->note, "%s", n > 11 ? f[11] : "");
  double per_fma = 2.0; /* 8 for complex: four real multiplies and four adds */
  for (size_t d = 0; d < bench_dtype_count; d++)
    if (strcmp(r->dtype, hop_dtype_name(bench_dtypes[d])) == 0)
      per_fma = hop_dtype_info(bench_dtypes[d])->flops_per_fma;
  double flops = per_fma * r->m * r->n * (double)r->k;
  r->gflops = !r->skipped && r->seconds > 0 ? flops / r->seconds * 1e-9 : 0;
  return true;
}

static void print_row(FILE *out, const struct bench_row *r)
{
  if (r->skipped)
    fprintf(out, "%-9s %-8s %-2s %-2s %6d %6d %6d %10s %10s %9s %-4s %s\n", r->engine, r->mode,
            r->dtype, r->trans, r->m, r->n, r->k, "-", "-", "-", "skip", r->note);
  else
    fprintf(out, "%-9s %-8s %-2s %-2s %6d %6d %6d %10.3f %10.2f %9.2e %-4s %s\n", r->engine,
            r->mode, r->dtype, r->trans, r->m, r->n, r->k, r->seconds * 1e3, r->gflops, r->max_err,
            r->within ? "ok" : "BAD", r->note);
  fflush(out);
}

int hop_cli_bench(int argc, char **argv)
{
  struct plan p;
  if (!parse(argc, argv, &p))
    return usage(stderr, 2);
  struct bench_row *rows = NULL;
  size_t nrows = 0;
  int bad = 0;
  printf("%-9s %-8s %-2s %-2s %6s %6s %6s %10s %10s %9s %-4s %s\n", "engine", "mode", "dt", "tr",
         "m", "n", "k", "ms", "GFLOPS", "max err", "ok", "note");
  for (int i = 0; i < p.nengines; i++) {
    int fds[2];
    fflush(stdout);
    if (pipe(fds) != 0)
      return perror("hopblas bench: pipe"), 1;
    pid_t pid = fork();
    if (pid < 0)
      return perror("hopblas bench: fork"), 1;
    if (pid == 0) {
      close(fds[0]);
      child(&p, p.engines[i], fds[1]);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[1024];
    while (in != NULL && fgets(line, sizeof line, in) != NULL) {
      struct bench_row *grown = realloc(rows, (nrows + 1) * sizeof *rows);
      if (grown == NULL)
        break;
      rows = grown;
      if (!parse_row(line, &rows[nrows]))
        continue;
      print_row(stdout, &rows[nrows]);
      bad += !rows[nrows].skipped && !rows[nrows].within;
      nrows++;
    }
    if (in != NULL)
      fclose(in);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "hopblas bench: the %s run ended abnormally (status %d)\n",
              p.engines[i]->name, status);
      bad++;
    }
  }
  if (p.csv != NULL) {
    FILE *fp = fopen(p.csv, "w");
    if (fp == NULL) {
      perror(p.csv);
      bad++;
    } else {
      fprintf(fp, "engine,mode,dtype,trans,m,n,k,seconds,gflops,max_err,within,skipped,note\n");
      for (size_t i = 0; i < nrows; i++) {
        const struct bench_row *r = &rows[i];
        fprintf(fp, "%s,%s,%s,%s,%d,%d,%d,%.9g,%.4f,%.3g,%d,%d,\"%s\"\n", r->engine, r->mode,
                r->dtype, r->trans, r->m, r->n, r->k, r->seconds, r->gflops, r->max_err,
                r->within, r->skipped, r->note);
      }
      /* A full disk shows at the flush, not at fprintf. */
      if (ferror(fp) | fclose(fp)) {
        fprintf(stderr, "hopblas bench: writing %s failed: %s\n", p.csv, strerror(errno));
        bad++;
      }
    }
  }
  if (p.png != NULL && !bench_plot(p.png, rows, nrows, "hopblas bench"))
    bad++;
  free(rows);
  if (bad)
    fprintf(stderr, "hopblas bench: %d result(s) outside the contract's bound or failed runs\n",
            bad);
  return bad ? 1 : 0;
}

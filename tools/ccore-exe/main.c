// SPDX-License-Identifier: MIT
/*
 * ccore-exe: build a ccore executable (.cce) from its text description,
 * dump one back as text, check one (Documentation/executable.rst).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccore.h"
#include "exec/exe.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ccore-exe build DESC.txt -o FILE.cce\n"
		"       ccore-exe dump FILE.cce [-o DESC.txt]\n"
		"       ccore-exe check FILE.cce\n"
		"\n"
		"ccore executables hold tensors, one compute instruction stream per rank\n"
		"(compute, dma, trigger, wait) and a table of collectives with their\n"
		"replica groups and CC streams; Documentation/executable.rst has the\n"
		"binary format, the text description and every validation rule.\n"
		"\n"
		"  build   read a text description, validate it, write the executable\n"
		"  dump    print an executable as a text description (build reads it\n"
		"          back into the same bytes)\n"
		"  check   load and validate an executable, print a summary\n"
		"  -o FILE the output (build: required; dump: default standard output)\n"
		"  -h, --help  this text\n"
		"  --version   print the version and exit\n"
		"\n"
		"Exit status: 0 done, 1 a bad or unreadable file (the message names\n"
		"what was wrong, with FILE:LINE for descriptions), 2 bad usage.\n");
}

static int read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *b;

	if (!f) {
		fprintf(stderr, "ccore-exe: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	b = malloc(cap);
	while (b) {
		size_t got = fread(b + n, 1, cap - n, f);

		n += got;
		if (n < cap)
			break;
		cap *= 2;
		char *nb = realloc(b, cap);

		if (!nb)
			free(b);
		b = nb;
	}
	if (!b || ferror(f)) {
		fprintf(stderr, "ccore-exe: cannot read '%s': %s\n", path,
			b ? strerror(errno) : "out of memory");
		free(b);
		fclose(f);
		return -1;
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = path ? fopen(path, "wb") : stdout;

	if (!f) {
		fprintf(stderr, "ccore-exe: cannot create '%s': %s\n", path, strerror(errno));
		return 1;
	}
	if (fwrite(buf, 1, len, f) != len || (path ? fclose(f) : fflush(f))) {
		fprintf(stderr, "ccore-exe: cannot write '%s': %s\n", path ? path : "standard output",
			strerror(errno));
		return 1;
	}
	return 0;
}

static int load(const char *path, struct ccore_exe **exe)
{
	char *buf;
	size_t len;
	int rc;

	if (read_file(path, &buf, &len))
		return 1;
	rc = ccore_exe_load(buf, len, exe);
	free(buf);
	if (rc) {
		fprintf(stderr, "ccore-exe: %s: %s\n", path, ccore_last_error());
		return 1;
	}
	return 0;
}

static int build(const char *in, const char *out)
{
	struct ccore_exe *exe;
	char *text;
	void *bin;
	size_t len;
	int rc;

	if (read_file(in, &text, &len))
		return 1;
	rc = ccore_exe_parse_text(in, text, len, &exe);
	free(text);
	if (rc) {
		fprintf(stderr, "ccore-exe: %s\n", ccore_last_error());
		return 1;
	}
	rc = ccore_exe_save(exe, &bin, &len);
	ccore_exe_free(exe);
	if (rc) {
		fprintf(stderr, "ccore-exe: %s: %s\n", in, ccore_last_error());
		return 1;
	}
	rc = write_file(out, bin, len);
	free(bin);
	return rc;
}

static int dump(const char *in, const char *out)
{
	struct ccore_exe *exe;
	char *text;
	int rc;

	if (load(in, &exe))
		return 1;
	rc = ccore_exe_print_text(exe, &text);
	ccore_exe_free(exe);
	if (rc) {
		fprintf(stderr, "ccore-exe: %s: %s\n", in, ccore_last_error());
		return 1;
	}
	rc = write_file(out, text, strlen(text));
	free(text);
	return rc;
}

static int check(const char *in)
{
	struct ccore_exe *exe;
	uint64_t insns = 0, triggers = 0;
	unsigned int streams = 0;

	if (load(in, &exe))
		return 1;
	for (uint32_t r = 0; r < exe->nranks; r++) {
		insns += exe->ranks[r].ninsns;
		for (uint32_t k = 0; k < exe->ranks[r].ninsns; k++)
			triggers += exe->ranks[r].insns[k].op == CCORE_EXE_TRIGGER;
	}
	for (uint32_t i = 0; i < exe->ncolls; i++)
		streams |= 1u << exe->colls[i].stream;
	printf("%s: valid: %u ranks (%u nodes x %u devices x %u ranks per device), %u tensors, %u collectives, %llu instructions (%llu triggers), streams",
	       in, exe->nranks, exe->topo.nodes, exe->topo.devices_per_node,
	       exe->topo.ranks_per_device, exe->ntensors, exe->ncolls, (unsigned long long)insns,
	       (unsigned long long)triggers);
	if (!streams)
		printf(" none");
	for (unsigned int s = 0; s < CCORE_EXE_MAX_STREAMS; s++)
		if (streams & (1u << s))
			printf(" %u", s);
	printf("\n");
	ccore_exe_free(exe);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = NULL, *file = NULL, *out = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("ccore-exe (ccore) %s\n", CCORE_VERSION_STRING);
			return 0;
		} else if (!strcmp(a, "-o")) {
			if (++i == argc) {
				fprintf(stderr, "ccore-exe: -o needs a file name\n");
				return 2;
			}
			out = argv[i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "ccore-exe: unknown option '%s'; allowed: -o FILE, -h, --help, --version\n", a);
			return 2;
		} else if (!cmd) {
			cmd = a;
		} else if (!file) {
			file = a;
		} else {
			fprintf(stderr, "ccore-exe: unexpected argument '%s'\n", a);
			return 2;
		}
	}
	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "build") && strcmp(cmd, "dump") && strcmp(cmd, "check")) {
		fprintf(stderr, "ccore-exe: unknown command '%s'; allowed: build, dump, check\n", cmd);
		return 2;
	}
	if (!file) {
		fprintf(stderr, "ccore-exe: %s needs a file: %s\n", cmd,
			!strcmp(cmd, "build") ? "ccore-exe build DESC.txt -o FILE.cce" :
			!strcmp(cmd, "dump") ? "ccore-exe dump FILE.cce [-o DESC.txt]" :
			"ccore-exe check FILE.cce");
		return 2;
	}
	if (!strcmp(cmd, "build")) {
		if (!out) {
			fprintf(stderr, "ccore-exe: build needs -o FILE.cce\n");
			return 2;
		}
		return build(file, out);
	}
	if (!strcmp(cmd, "check")) {
		if (out) {
			fprintf(stderr, "ccore-exe: check writes nothing; -o goes with build and dump\n");
			return 2;
		}
		return check(file);
	}
	return dump(file, out);
}

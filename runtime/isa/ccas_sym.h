/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal to runtime/isa: the assembler's symbols.  Labels and .equ
 * constants share one namespace, so a name means one thing per file.
 */
#ifndef CCAS_SYM_H
#define CCAS_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ccas_sym_kind {
	CCAS_SYM_LABEL,
	CCAS_SYM_EQU,
};

/**
 * struct ccas_sym - one name
 * @name: the name (not NUL-terminated; @len bytes)
 * @len: its length
 * @kind: &enum ccas_sym_kind
 * @value: instruction index of a label, value of a constant
 * @line: source line of the definition
 * @defined: the definition has been reached by the second pass
 * @next: hash chain
 */
struct ccas_sym {
	char *name;
	size_t len;
	enum ccas_sym_kind kind;
	uint32_t value;
	unsigned long line;
	bool defined;
	struct ccas_sym *next;
};

struct ccas_symtab {
	struct ccas_sym **buckets;
	size_t nbuckets;
	size_t count;
};

void ccas_symtab_init(struct ccas_symtab *t);
void ccas_symtab_fini(struct ccas_symtab *t);
/* The symbol named by the @len bytes at @name, or NULL. */
struct ccas_sym *ccas_sym_find(const struct ccas_symtab *t, const char *name,
			       size_t len);
/* Add a new name (the caller checked it is new); NULL if out of memory. */
struct ccas_sym *ccas_sym_add(struct ccas_symtab *t, const char *name,
			      size_t len, enum ccas_sym_kind kind,
			      uint32_t value, unsigned long line);

#endif

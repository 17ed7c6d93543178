#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check syzkaller descriptions of ccore's uAPI against the C headers.

Syzkaller itself (syz-sysgen) cannot be built here, so this reads the
subset of syzlang that dev_ccore.txt uses and checks what a wrong
description would silently get wrong while fuzzing:

  - every ioctl of the header is described, with the header's argument
    struct and the pointer direction its DRM_IOW/DRM_IOWR implies;
  - every field the header's kernel-doc calls "out:" is (out);
  - every enum of the header is one flags list, every DRM_CCORE_*_F_* flag
    is described, every constant used is in the .const file;
  - in a generated C file of _Static_asserts, compiled with the headers:
    every .const value, and for every structure named after a C struct
    (drm_*, a $variant suffix dropped) its field names, order, sizes and
    offsets as syzlang lays them out on amd64, and each ioctl's
    _IOC_SIZE and _IOC_DIR.

Over 800 lines on purpose: a reader of the subset of syzlang the
description uses and the checks against the header, one tool with one
job; its parts share the parsed description.

Usage: syz-check.py [options] DESCRIPTION.txt
  --const FILE      its constants (default: DESCRIPTION.txt.const)
  --header FILE     the driver's uAPI header (default: uapi/drm/ccore_accel.h)
  -I DIR            more include directories, also searched for drm.h (the
                    generic DRM ioctls); repeatable, default /usr/include/libdrm
  --cc CC           C compiler (default: $CC, else cc)
  --c-out FILE      keep the generated C file there
  --self-test       then check that copies broken in each known way are
                    rejected with the expected message
  --config FILE     then check a syz-manager config: JSON whose
                    enable_syscalls all name calls that exist
  --write-const     rewrite the .const file from the headers (amd64 host)
  --guest-probes FILE  write what the description assumes of a running
                    system, for selftests/driver/syzkaller_test.sh: the file
                    names it opens and its lists of strings
  --variants-h FILE write a C header describing one typical instance of
                    every variant of the descriptor and instruction unions,
                    for selftests/runtime/syz_variants_test.c
  -h, --help        this text

Exit status: 0 if consistent; 1 if not, each problem printed as
FILE:LINE: what is wrong; 2 for bad usage.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# What other files of syzkaller's sys/linux/ define that ours takes.
EXTERNAL_RESOURCES = {
    'fd': 'int32',                 # sys.txt
    'fd_dri': 'fd',                # dev_dri.txt
    'drm_gem_handle': 'int32',     # dev_dri.txt
    'drm_syncobj': 'int32',        # dev_dri.txt
    'fd_drm_syncobj': 'fd',        # dev_dri.txt
    'fd_dma_buf': 'fd',            # dev_udmabuf.txt
    'fd_sync_file': 'fd',          # dev_sw_sync.txt
}
EXTERNAL_FLAGS = {'open_flags', 'mmap_prot', 'mmap_flags'}  # sys.txt
# Calls of other files the sample config enables on our resources.
EXTERNAL_CALLS = {'close', 'dup', 'ioctl$DMA_BUF_IOCTL_SYNC', 'ioctl$SYNC_IOC_FILE_INFO',
                  'ioctl$SYNC_IOC_MERGE'}
# Enums of the header that no input field takes: nothing to describe.
ENUMS_NOT_INPUT = {'drm_ccore_topology'}  # GET_PARAM reports it

INT_SIZES = {'int8': 1, 'int16': 2, 'int32': 4, 'int64': 8, 'intptr': 8}
INT_SIZES.update({name + 'be': size for name, size in INT_SIZES.items()})
BUILTIN_ALIASES = {'bool8': 'int8', 'bool16': 'int16', 'bool32': 'int32', 'bool64': 'int64',
                   'boolptr': 'intptr'}
# Types stored as the integer type their last argument names.
STORED_AS_LAST_ARG = {'const', 'flags', 'len', 'bytesize', 'bytesize2', 'bytesize4',
                      'bytesize8', 'bitsize', 'proc', 'offsetof'}
POINTER_SIZES = {'ptr': 8, 'ptr64': 8, 'vma': 8, 'vma64': 8}  # amd64
VARLEN_TYPES = {'string', 'stringnoz', 'fmt', 'glob', 'optional', 'text', 'compressed_image'}
BUILTIN_TYPES = (set(INT_SIZES) | set(BUILTIN_ALIASES) | STORED_AS_LAST_ARG |
                 set(POINTER_SIZES) | VARLEN_TYPES | {'array', 'void', 'filename', 'buffer'})
# Words that are type arguments but neither types nor constants.
KEYWORDS = {'in', 'out', 'inout', 'dec', 'hex', 'oct'}
DIRECTIONS = {'in', 'out', 'inout'}
IOCTL_DIRECTION = {'DRM_IOW': 'in', 'DRM_IOWR': 'inout', 'DRM_IOR': 'out'}


class ParseError(Exception):
    pass


class VarLen(Exception):
    pass


def read_text(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def base_name(name):
    """The C name of a syzlang name: drm_ccore_desc$copy -> drm_ccore_desc."""
    return name.split('$', 1)[0]


def is_c_struct(name):
    return base_name(name).startswith('drm_')


# --- the syzlang subset ------------------------------------------------------

TOKEN_RE = re.compile(r'''
    (?P<ws>[ \t]+)
  | (?P<str>"[^"\n]*"|`[^`\n]*`)
  | (?P<char>'[^'\n]')
  | (?P<num>-?(?:0x[0-9a-fA-F]+|[0-9]+))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<punct>[\[\]{}(),:=<>])
''', re.X)


def strip_comment(line):
    """@line without its # comment (a # inside a string is not one)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in '"`':
            quote = ch
        elif ch == '#':
            return line[:i]
    return line


class Type:
    """name[args]: each arg a Type, ('num', n), ('str', text) or ('range', lo, hi)."""

    def __init__(self, name, args):
        self.name, self.args = name, args

    def __repr__(self):
        return self.name + ('[%s]' % ', '.join(map(repr, self.args)) if self.args else '')


class Tokens:
    def __init__(self, line):
        self.toks, self.i = [], 0
        pos = 0
        while pos < len(line):
            m = TOKEN_RE.match(line, pos)
            if not m:
                raise ParseError('cannot read %r' % line[pos:])
            pos = m.end()
            if m.lastgroup != 'ws':
                self.toks.append((m.lastgroup, m.group(m.lastgroup)))

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, kind=None, text=None):
        tok = self.peek()
        if tok[0] is None or (kind and tok[0] != kind) or (text and tok[1] != text):
            raise ParseError('expected %s, found %s' % (text or kind, tok[1] or 'end of line'))
        self.i += 1
        return tok[1]

    def at(self, text):
        return self.peek()[1] == text

    def skip(self, text):
        """Take @text if it is next; whether it was."""
        if self.at(text):
            self.i += 1
            return True
        return False

    def done(self):
        return self.i >= len(self.toks)

    def expect_end(self):
        if not self.done():
            raise ParseError('unexpected %s' % self.peek()[1])

    def value(self):
        kind, text = self.peek()
        if kind == 'num':
            self.take()
            return ('num', int(text, 0))
        if kind in ('str', 'char'):
            self.take()
            return ('str', text)
        return self.type()

    def arg(self):
        v = self.value()
        return ('range', v, self.value()) if self.skip(':') else v

    def list_of(self, item, close):
        """item, item, ... up to and including @close."""
        out = []
        while not self.skip(close):
            out.append(item())
            if not self.at(close):
                self.take(text=',')
        return out

    def type(self):
        name = self.take('ident')
        return Type(name, self.list_of(self.arg, ']') if self.skip('[') else [])

    def attrs(self):
        return self.list_of(lambda: self.take('ident'), ')') if self.skip('(') else []


class Description:
    """The declarations of a description file; each 'where' is FILE:LINE."""

    def __init__(self):
        self.resources = {}   # name -> (base, [special values], where)
        self.aliases = {}     # name -> (Type, where)
        self.flags = {}       # name -> ([('num', n) or ('ident', name)], where)
        self.str_flags = {}   # name -> ([('str', text)], where)
        self.structs = {}     # name -> ([(field, Type, [attrs], where)], [attrs], where)
        self.unions = {}      # name -> ([(option, Type, [], where)], [attrs], where)
        self.calls = []       # (name, [(arg, Type)], where)
        self.returns = []     # the Types calls return
        self.defines = set()
        self.meta = []

    def is_type(self, name):
        return (name in BUILTIN_TYPES or name in self.aliases or name in self.resources or
                name in EXTERNAL_RESOURCES or name in self.structs or name in self.unions)

    def is_flags(self, name):
        return name in self.flags or name in self.str_flags or name in EXTERNAL_FLAGS

    def types(self):
        """Every (Type, where) written in a declaration."""
        for t, where in self.aliases.values():
            yield t, where
        for table in (self.structs, self.unions):
            for fields, _, _ in table.values():
                for _, t, _, where in fields:
                    yield t, where
        for _, args, where in self.calls:
            for _, t in args:
                yield t, where


def parse_description(text, fname, problems):
    d = Description()
    block = None  # the struct or union being read: (table, name, fields, where)
    for lineno, raw in enumerate(text.split('\n'), 1):
        where = '%s:%d' % (fname, lineno)
        line = strip_comment(raw).strip()
        if not line:
            continue
        try:
            if block and line[0] in '}]':
                table, name, fields, bwhere = block
                ts = Tokens(line[1:])
                attrs = ts.list_of(ts.arg, ']') if ts.skip('[') else []
                ts.expect_end()
                if name in d.structs or name in d.unions:
                    problems.append('%s: %s is defined twice' % (where, name))
                table[name] = (fields, attrs, bwhere)
                block = None
            elif block:
                ts = Tokens(line)
                field = (ts.take('ident'), ts.type(), ts.attrs(), where)
                ts.expect_end()
                block[2].append(field)
            else:
                block = parse_declaration(d, line, where)
        except ParseError as e:
            problems.append('%s: %s' % (where, e))
    if block:
        problems.append('%s: %s is not closed' % (block[3], block[1]))
    return d


def parse_declaration(d, line, where):
    """Record one top-level declaration; the block it opens, if any."""
    first = line.split(None, 1)[0]
    if first in ('include', 'incdir'):
        return None
    if first == 'meta':
        d.meta.append(line.split(None, 1)[1])
        return None
    ts = Tokens(line)
    if ts.skip('define'):
        d.defines.add(ts.take('ident'))
    elif ts.skip('resource'):
        name = ts.take('ident')
        ts.take(text='[')
        base = ts.take('ident')
        ts.take(text=']')
        specials = [ts.value()] if ts.skip(':') else []
        while ts.skip(','):
            specials.append(ts.value())
        d.resources[name] = (base, specials, where)
    elif ts.skip('type'):
        name = ts.take('ident')
        if ts.at('['):
            raise ParseError('type templates are not supported by this check')
        d.aliases[name] = (ts.type(), where)
    else:
        name = ts.take('ident')
        if ts.skip('='):
            values = [ts.value()]
            while ts.skip(','):
                values.append(ts.value())
            values = [('ident', v.name) if isinstance(v, Type) else v for v in values]
            table = d.str_flags if all(v[0] == 'str' for v in values) else d.flags
            table[name] = (values, where)
        elif ts.skip('{'):
            return (d.structs, name, [], where)
        elif ts.skip('['):
            return (d.unions, name, [], where)
        elif ts.skip('('):
            args = ts.list_of(lambda: (ts.take('ident'), ts.type()), ')')
            if not ts.done() and not ts.at('('):
                d.returns.append(ts.type())
            ts.attrs()
            d.calls.append((name, args, where))
        else:
            raise ParseError('cannot tell what %r declares' % name)
    ts.expect_end()
    return None


# --- layout by syzlang's rules (amd64) -----------------------------------------

class Layout:
    def __init__(self, desc):
        self.d, self.structs = desc, {}

    def resource_int(self, name):
        """The integer type resource @name derives from; KeyError if none."""
        seen = set()
        while name not in INT_SIZES:
            if name in seen:
                raise KeyError(name)
            seen.add(name)
            name = self.d.resources[name][0] if name in self.d.resources else \
                EXTERNAL_RESOURCES[name]
        return name

    def size_align(self, t):
        """(size, alignment) of @t; VarLen if it has no fixed size."""
        n = t.name
        if n in INT_SIZES or n in BUILTIN_ALIASES:
            size = INT_SIZES[BUILTIN_ALIASES.get(n, n)]
        elif n in STORED_AS_LAST_ARG:
            last = t.args[-1] if t.args else None
            if not isinstance(last, Type) or last.name not in INT_SIZES:
                raise ValueError('%r: the last argument must be its integer type' % t)
            size = INT_SIZES[last.name]
        elif n in POINTER_SIZES:
            size = POINTER_SIZES[n]
        elif n == 'array':
            if len(t.args) != 2 or t.args[1][0] != 'num':
                raise VarLen('%r has no fixed length' % t)
            size, align = self.size_align(t.args[0])
            return size * t.args[1][1], align
        elif n in VARLEN_TYPES:
            raise VarLen('%s has no fixed size' % n)
        elif n in self.d.aliases:
            return self.size_align(self.d.aliases[n][0])
        elif n in self.d.resources or n in EXTERNAL_RESOURCES:
            size = INT_SIZES[self.resource_int(n)]
        elif n in self.d.structs:
            return self.struct_layout(n)[:2]
        elif n in self.d.unions:
            return self.union_layout(n)
        else:
            raise ValueError('unknown type %s' % n)
        return size, size

    def struct_layout(self, name):
        """(size, alignment, [(field, offset, size)]): each field aligned to
        its own alignment (1 if [packed]), the end to the largest."""
        if name not in self.structs:
            fields, attrs, _ = self.d.structs[name]
            attr = {a.name: a.args for a in attrs if isinstance(a, Type)}
            off, align, out = 0, 1, []
            for fname, ftype, _, _ in fields:
                size, falign = self.size_align(ftype)
                falign = 1 if 'packed' in attr else falign
                off = -(-off // falign) * falign
                out.append((fname, off, size))
                off += size
                align = max(align, falign)
            align = attr['align'][0][1] if 'align' in attr else align
            size = max(-(-off // align) * align, attr['size'][0][1] if 'size' in attr else 0)
            self.structs[name] = (size, align, out)
        return self.structs[name]

    def union_layout(self, name):
        """(size, alignment): the largest option's."""
        options, attrs, _ = self.d.unions[name]
        if any(isinstance(a, Type) and a.name == 'varlen' for a in attrs):
            raise VarLen('union %s is varlen' % name)
        size, align = 0, 1
        for _, otype, _, _ in options:
            s, a = self.size_align(otype)
            size, align = max(size, s), max(align, a)
        return -(-size // align) * align, align


# --- what the C headers say ------------------------------------------------------

def header_ioctls(text):
    """DRM_IOCTL_X -> (DRM_IOW/DRM_IOR/DRM_IOWR, argument struct)."""
    text = text.replace('\\\n', ' ')
    return {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(
        r'#define\s+(DRM_IOCTL_\w+)\s+(DRM_IO[RW]*)\s*\([^(),]*,\s*struct\s+(\w+)\s*\)', text)}


def header_enums(text):
    """enum name -> its members."""
    out = {}
    for m in re.finditer(r'enum\s+(\w+)\s*\{(.*?)\};', text, re.S):
        body = re.sub(r'/\*.*?\*/', '', m.group(2), flags=re.S)
        out[m.group(1)] = set(re.findall(r'^\s*(\w+)\s*=', body, re.M))
    return out


def header_out_fields(text):
    """struct name -> fields whose kernel-doc starts with 'out:'."""
    out = {}
    for m in re.finditer(r'struct\s+(\w+)\s*\{(.*?)\n\};', text, re.S):
        doc = re.sub(r'\n\s*\*\s?', ' ', m.group(2))
        out[m.group(1)] = set(re.findall(r'@(\w+):\s*out:', doc))
    return out


def header_flags(text):
    return set(re.findall(r'#define\s+(DRM_CCORE_\w+_F_\w+)\s', text))


# --- the check -----------------------------------------------------------------

def used_consts(d):
    """Constant name -> where it is first used, for every constant needing a value."""
    used = {}

    def note(name, where):
        if name not in d.defines:
            used.setdefault(name, where)

    def walk(t, where):
        if not isinstance(t, Type):
            if t[0] == 'range':
                walk(t[1], where)
                walk(t[2], where)
        elif not t.args and not d.is_type(t.name) and not d.is_flags(t.name) and \
                t.name not in KEYWORDS:
            note(t.name, where)  # a value, a range bound, an array length
        else:
            # len[field, T]: the field is not a constant
            for a in t.args[1:] if t.name in ('len', 'bytesize', 'bitsize') else t.args:
                walk(a, where)

    for values, where in d.flags.values():
        for kind, v in values:
            if kind == 'ident':
                note(v, where)
    for _, specials, where in d.resources.values():
        for v in specials:
            walk(v, where)
    for t, where in d.types():
        walk(t, where)
    for name, _, where in d.calls:
        if not name.startswith('syz_'):
            note('__NR_' + base_name(name), where)  # the system call's number
    return used


def read_const_file(text, fname, problems):
    """NAME -> (value, where); the file must be amd64's only."""
    values, arches = {}, None
    for lineno, line in enumerate(text.split('\n'), 1):
        where = '%s:%d' % (fname, lineno)
        if not line or line.startswith('#'):
            continue
        if '=' not in line:
            problems.append('%s: expected NAME = VALUE' % where)
            continue
        name, val = (s.strip() for s in line.split('=', 1))
        if arches is None:
            if name != 'arches':
                problems.append('%s: the first line must be "arches = amd64"' % where)
            arches = [a.strip() for a in val.split(',')]
        elif ',' in val or ':' in val:
            problems.append('%s: %s: per-arch values are not supported' % (where, name))
        else:
            try:
                values[name] = (int(val, 0), where)
            except ValueError:
                problems.append('%s: %s: %r is not a number' % (where, name, val))
    if arches != ['amd64']:
        problems.append('%s:1: arches must be exactly amd64 (the check runs there), not %s'
                        % (fname, arches))
    return values


class Checker:
    """Problems found directly, and the C assertions left for the compiler."""

    def __init__(self, txt, txt_name, const_text, const_name, header, header_name, generic):
        self.problems = []
        self.txt_name, self.const_name, self.header_name = txt_name, const_name, header_name
        self.d = parse_description(txt, txt_name, self.problems)
        self.lay = Layout(self.d)
        self.consts = read_const_file(const_text, const_name, self.problems)
        self.header = header
        self.ioctls = header_ioctls(header)
        self.generic_ioctls = {}
        for text in generic:
            self.generic_ioctls.update(header_ioctls(text))
        self.asserts = []

    def problem(self, where, msg):
        self.problems.append('%s: %s' % (where, msg))

    def assert_c(self, cond, where, msg):
        self.asserts.append('_Static_assert(%s, "%s: %s");' % (cond, where, msg.replace('"', "'")))

    def check_meta(self):
        if 'noextract' not in self.d.meta:
            self.problem(self.txt_name, 'needs "meta noextract": syz-extract cannot find the '
                         'header in the kernel tree')
        if 'arches["amd64"]' not in self.d.meta:
            self.problem(self.txt_name, 'needs meta arches["amd64"]: the .const file is amd64\'s')

    def check_names(self):
        for name, (base, _, where) in self.d.resources.items():
            try:
                self.lay.resource_int(name)
            except KeyError:
                self.problem(where, 'resource %s: %s is not a resource or an integer type'
                             % (name, base))
        for t, where in self.d.types():
            self.check_type_names(t, where)
        for sname, (fields, _, _) in self.d.structs.items():
            for fname, _, attrs, where in fields:
                for a in set(attrs) - DIRECTIONS:
                    self.problem(where, '%s.%s: unknown attribute %s' % (sname, fname, a))

    def check_type_names(self, t, where):
        if not isinstance(t, Type):
            if t[0] == 'range':
                self.check_type_names(t[1], where)
                self.check_type_names(t[2], where)
            return
        if t.args and not self.d.is_type(t.name):
            self.problem(where, 'unknown type %s' % t.name)
        if t.name == 'flags' and t.args and not (isinstance(t.args[0], Type) and
                                                 self.d.is_flags(t.args[0].name)):
            self.problem(where, '%r: no such flags list' % t)
        if t.name in ('string', 'stringnoz') and t.args and isinstance(t.args[0], Type) and \
                t.args[0].name not in self.d.str_flags:
            self.problem(where, '%r: no such list of strings' % t)
        for a in t.args:
            self.check_type_names(a, where)

    def check_consts(self):
        used = used_consts(self.d)
        for name, where in sorted(used.items()):
            if name not in self.consts:
                self.problem(where, '%s is not in %s' % (name, self.const_name))
        for name, (value, where) in sorted(self.consts.items()):
            if name not in used:
                self.problem(where, '%s is not used by %s' % (name, self.txt_name))
            else:
                self.assert_c('(unsigned long long)(%s) == %dULL' % (name, value), where,
                              '%s is %d here, not what the headers say' % (name, value))

    def check_structs(self):
        for name, (fields, _, where) in self.d.structs.items():
            if not is_c_struct(name):
                continue
            try:
                size, _, offsets = self.lay.struct_layout(name)
            except (VarLen, ValueError) as e:
                self.problem(where, '%s: %s (a C struct has a fixed layout)' % (name, e))
                continue
            cname = 'struct ' + base_name(name)
            self.assert_c('sizeof(%s) == %d' % (cname, size), where,
                          '%s is %d bytes by syzlang rules, sizeof(%s) differs'
                          % (name, size, cname))
            for (fname, off, fsize), (_, _, _, fwhere) in zip(offsets, fields):
                self.assert_c('offsetof(%s, %s) == %d' % (cname, fname, off), fwhere,
                              '%s.%s is at offset %d by syzlang rules, not in %s'
                              % (name, fname, off, cname))
                self.assert_c('sizeof(((%s *)0)->%s) == %d' % (cname, fname, fsize), fwhere,
                              '%s.%s is %d bytes by syzlang rules, not in %s'
                              % (name, fname, fsize, cname))
        for name, (options, _, where) in self.d.unions.items():
            if not is_c_struct(name):
                continue
            for oname, otype, _, owhere in options:
                if base_name(otype.name) != name or otype.name not in self.d.structs:
                    self.problem(owhere, 'union %s: option %s must be a struct %s$variant'
                                 % (name, oname, name))
            try:
                size, _ = self.lay.union_layout(name)
            except (VarLen, ValueError) as e:
                self.problem(where, '%s: %s' % (name, e))
                continue
            self.assert_c('sizeof(struct %s) == %d' % (name, size), where,
                          'union %s is %d bytes by syzlang rules, sizeof(struct %s) differs'
                          % (name, size, name))

    def check_out_fields(self):
        documented = header_out_fields(self.header)
        for name, (fields, _, _) in self.d.structs.items():
            for fname, _, attrs, where in fields:
                if fname in documented.get(base_name(name), ()) and 'out' not in attrs:
                    self.problem(where, '%s.%s: the header documents it as out:, mark it (out)'
                                 % (name, fname))

    def has_out_fields(self, name):
        if name in self.d.structs:
            return any('out' in attrs for _, _, attrs, _ in self.d.structs[name][0])
        if name in self.d.unions:
            return any(self.has_out_fields(t.name) for _, t, _, _ in self.d.unions[name][0])
        return False

    def check_ioctl(self, cname, args, where):
        """One ioctl$ call; the ccore ioctl it describes, if any."""
        if len(args) != 3 or args[1][1].name != 'const' or not args[1][1].args or \
                args[2][1].name not in ('ptr', 'ptr64') or len(args[2][1].args) != 2:
            self.problem(where, '%s: expected (fd, cmd const[CMD], arg ptr[DIR, STRUCT])' % cname)
            return None
        cmd = args[1][1].args[0].name
        pdir, pointee = args[2][1].args[0].name, args[2][1].args[1]
        if cmd in self.ioctls:
            macro, cstruct = self.ioctls[cmd]
            if pdir != IOCTL_DIRECTION[macro]:
                self.problem(where, '%s: %s is %s in %s: the argument must be ptr[%s, ...]'
                             % (cname, cmd, macro, self.header_name, IOCTL_DIRECTION[macro]))
        elif cmd in self.generic_ioctls:
            cstruct = self.generic_ioctls[cmd][1]
        else:
            self.problem(where, '%s: %s is not an ioctl of %s or drm.h'
                         % (cname, cmd, self.header_name))
            return None
        if base_name(pointee.name) != cstruct:
            self.problem(where, '%s: %s takes struct %s, not %s'
                         % (cname, cmd, cstruct, pointee.name))
        if pdir == 'in' and self.has_out_fields(pointee.name):
            self.problem(where, '%s: %s has (out) fields, the pointer is ptr[in]'
                         % (cname, pointee.name))
        bits = {'in': '_IOC_WRITE', 'out': '_IOC_READ', 'inout': '(_IOC_READ | _IOC_WRITE)'}[pdir]
        self.assert_c('(_IOC_DIR(%s) & %s) == %s' % (cmd, bits, bits), where,
                      '%s: ptr[%s] but _IOC_DIR(%s) does not copy that way' % (cname, pdir, cmd))
        try:
            size, _ = self.lay.size_align(pointee)
        except (VarLen, ValueError) as e:
            self.problem(where, '%s: %s' % (cname, e))
            return None
        self.assert_c('_IOC_SIZE(%s) == %d' % (cmd, size), where,
                      '%s: %s is %d bytes by syzlang rules, not _IOC_SIZE(%s)'
                      % (cname, pointee.name, size, cmd))
        return cmd if cmd in self.ioctls else None

    def check_ioctls(self):
        described = set()
        for cname, args, where in self.d.calls:
            if base_name(cname) == 'ioctl':
                described.add(self.check_ioctl(cname, args, where))
        described.discard(None)
        for cmd in sorted(set(self.ioctls) - described):
            self.problem(self.txt_name, '%s of %s is not described' % (cmd, self.header_name))
        if described:
            # and no ioctl number is left out between them
            bits = ' | '.join('(1ULL << (_IOC_NR(%s) - DRM_COMMAND_BASE))' % c
                              for c in sorted(described))
            self.assert_c('(%s) == (1ULL << %d) - 1' % (bits, len(described)), self.txt_name,
                          'the ccore ioctls described are not numbers 0..%d' % (len(described) - 1))

    def check_enums_and_flags(self):
        lists = {name: {v for kind, v in values if kind == 'ident'}
                 for name, (values, _) in self.d.flags.items()}
        for enum, members in sorted(header_enums(self.header).items()):
            if enum in ENUMS_NOT_INPUT or members in lists.values():
                continue
            closest = max(lists, key=lambda name: len(lists[name] & members), default=None)
            missing = sorted(members - lists.get(closest, set())) or ['none, it has others']
            self.problem(self.txt_name, 'enum %s of %s: no flags list has exactly its members '
                         '(closest: %s, missing %s)'
                         % (enum, self.header_name, closest, ', '.join(missing)))
        used = used_consts(self.d)
        for flag in sorted(header_flags(self.header) - set(used)):
            self.problem(self.txt_name, 'flag %s of %s is not described' % (flag, self.header_name))

    def referenced(self):
        """Names of declarations something refers to."""
        refs = set()

        def walk(t):
            if isinstance(t, Type):
                refs.add(t.name)
                for a in t.args:
                    walk(a)
            elif t[0] == 'range':
                walk(t[1])
                walk(t[2])

        for t, _ in self.d.types():
            walk(t)
        for base, specials, _ in self.d.resources.values():
            refs.add(base)
        return refs

    def check_unused(self):
        """syz-sysgen refuses declarations nothing uses."""
        refs = self.referenced()
        for kind, table in (('flags', self.d.flags), ('strings', self.d.str_flags),
                            ('struct', self.d.structs), ('union', self.d.unions),
                            ('type', self.d.aliases), ('resource', self.d.resources)):
            for name, decl in sorted(table.items()):
                if name not in refs:
                    self.problem(decl[-1], '%s %s is not used (syz-sysgen refuses that)'
                                 % (kind, name))

    def walk_ctors(self, t, direction, can_create, seen, made, taken):
        """syz-sysgen's rule for resources: made where a call returns it or an
        out field outside a union holds it, taken where an in field does."""
        if t.name in self.d.aliases:
            t = self.d.aliases[t.name][0]
        if t.name in self.d.resources or t.name in EXTERNAL_RESOURCES:
            name = t.name
            while name in self.d.resources:
                if can_create and direction != 'in':
                    made.add(name)
                if direction != 'out':
                    taken.add(name)
                name = self.d.resources[name][0]
        elif t.name in self.d.structs or t.name in self.d.unions:
            if (t.name, direction) in seen:
                return
            seen.add((t.name, direction))
            fields = (self.d.structs.get(t.name) or self.d.unions[t.name])[0]
            for _, ftype, attrs, _ in fields:
                fdir = next((a for a in attrs if a in DIRECTIONS), direction)
                self.walk_ctors(ftype, fdir, can_create and t.name in self.d.structs, seen,
                                made, taken)
        elif t.name in ('ptr', 'ptr64') and len(t.args) == 2:
            self.walk_ctors(t.args[1], t.args[0].name, can_create, seen, made, taken)
        elif t.name == 'array' and t.args:
            self.walk_ctors(t.args[0], direction, can_create, seen, made, taken)
        elif t.name == 'optional' and t.args:
            self.walk_ctors(t.args[0], direction, False, seen, made, taken)

    def check_ctors(self):
        made, taken, seen = set(), set(), set()
        for _, args, _ in self.d.calls:
            for _, t in args:
                self.walk_ctors(t, 'in', True, seen, made, taken)
        for ret in self.d.returns:
            self.walk_ctors(ret, 'out', True, seen, made, taken)
        for name, (_, _, where) in sorted(self.d.resources.items()):
            if name not in made:
                self.problem(where, 'resource %s is never made: no call returns it, no out '
                             'field outside a union holds it' % name)
            if name not in taken:
                self.problem(where, 'resource %s is never taken as an input' % name)

    def run(self):
        """The problems found without the compiler."""
        self.check_meta()
        self.check_unused()
        self.check_ctors()
        self.check_names()
        self.check_ioctls()
        self.check_consts()
        self.check_structs()
        self.check_out_fields()
        self.check_enums_and_flags()
        return self.problems

    def c_source(self):
        return '\n'.join([
            '/* Generated by tools/syzkaller/syz-check.py from %s: do not edit. */' % self.txt_name,
            '#define _GNU_SOURCE',
            '#include <stddef.h>',
            '#include <fcntl.h>',
            '#include <sys/syscall.h>',
            '#include "%s"' % os.path.basename(self.header_name),
            '',
        ] + self.asserts) + '\n'


def compile_c(source, cc, includes, keep=None):
    """Compile @source; None if it compiles, else the compiler's errors."""
    with tempfile.TemporaryDirectory() as tmp:
        path = keep or os.path.join(tmp, 'syz_check.c')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(source)
        cmd = cc.split() + ['-std=c11', '-Wall', '-Wextra', '-Werror', '-fsyntax-only']
        r = subprocess.run(cmd + ['-I' + i for i in includes] + [path], capture_output=True,
                           text=True, check=False)
    if r.returncode == 0:
        return None
    return '\n'.join([ln for ln in r.stderr.split('\n') if 'error' in ln] or [r.stderr.strip()])


def check(txt, const_text, header, args, generic, c_out=None):
    """Every problem of this description, .const file and header, as lines."""
    ch = Checker(txt, args.description, const_text, args.const, header, args.header, generic)
    problems = ch.run()
    if problems:
        return problems
    with tempfile.TemporaryDirectory() as tmp:
        includes = [os.path.dirname(args.header) or '.'] + args.include
        if header != read_text(args.header):
            # a self-test's header: compile against it
            with open(os.path.join(tmp, os.path.basename(args.header)), 'w',
                      encoding='utf-8') as f:
                f.write(header)
            includes.insert(0, tmp)
        err = compile_c(ch.c_source(), args.cc, includes, c_out)
    return [err] if err else []


# Each known kind of mistake once: (what, file, text, replacement, the complaint expected).
MUTATIONS = [
    ('a field of the wrong size', 'txt',
     'index_count\tint32[0:8]', 'index_count\tint64[0:8]',
     'drm_ccore_ring_create$indexed is 56 bytes by syzlang rules'),
    ('two fields swapped', 'txt',
     '\tdst\t\tccore_dev_addr\n\tsrc0\t\tccore_dev_addr\n\tsrc1\t\tconst[0, int64]\n}\n\n'
     'drm_ccore_desc$reduce',
     '\tsrc0\t\tccore_dev_addr\n\tdst\t\tccore_dev_addr\n\tsrc1\t\tconst[0, int64]\n}\n\n'
     'drm_ccore_desc$reduce',
     'drm_ccore_desc$copy_signal.src0 is at offset 24 by syzlang rules'),
    ('a field named differently', 'txt',
     'bad_index\tint32\t(out)\n}\n\ndrm_ccore_ring_stats',
     'bad_idx\tint32\t(out)\n}\n\ndrm_ccore_ring_stats', 'bad_idx'),
    ('a narrower pad (an implicit hole)', 'txt',
     '\tfirst\tccore_sem_ref\t(out)\n\tpad\tconst[0, int32]',
     '\tfirst\tccore_sem_ref\t(out)\n\tpad\tconst[0, int8]',
     'drm_ccore_sem_alloc.pad is 1 bytes by syzlang rules'),
    ('a wrong ioctl number', 'const',
     'DRM_IOCTL_CCORE_SUBMIT = ', 'DRM_IOCTL_CCORE_SUBMIT = 1', 'DRM_IOCTL_CCORE_SUBMIT is 1'),
    ('a wrong enum value', 'const',
     'DRM_CCORE_OP_STARTI = 17', 'DRM_CCORE_OP_STARTI = 18', 'DRM_CCORE_OP_STARTI is 18'),
    ('an ioctl left out', 'txt',
     'ioctl$DRM_IOCTL_CCORE_CC_TRIGGER(', '#ioctl$DRM_IOCTL_CCORE_CC_TRIGGER(',
     'DRM_IOCTL_CCORE_CC_TRIGGER of uapi/drm/ccore_accel.h is not described'),
    ('an opcode left out of its flags', 'txt',
     'DRM_CCORE_OP_NOTIFY, DRM_CCORE_OP_STARTI\n', 'DRM_CCORE_OP_NOTIFY\n',
     'missing DRM_CCORE_OP_STARTI'),
    ('an out field not marked (out)', 'txt',
     'handle\t\tccore_ring_handle\t(out)\n\tpad\t\tconst[0, int32]\n\tindex_stride\tint64',
     'handle\t\tccore_ring_handle\n\tpad\t\tconst[0, int32]\n\tindex_stride\tint64',
     'drm_ccore_ring_create$indexed.handle: the header documents it as out:'),
    ('the wrong argument struct', 'txt',
     'arg ptr[inout, drm_ccore_ring_stats])', 'arg ptr[inout, drm_ccore_ring_submit])',
     'takes struct drm_ccore_ring_stats, not drm_ccore_ring_submit'),
    ('the wrong pointer direction', 'txt',
     'arg ptr[in, drm_ccore_sem_wait])', 'arg ptr[inout, drm_ccore_sem_wait])',
     'the argument must be ptr[in, ...]'),
    ('a constant missing from the .const file', 'const',
     'DRM_CCORE_DESC_DIV = 4\n', '', 'DRM_CCORE_DESC_DIV is not in'),
    ('a new ioctl in the header', 'header',
     '#if defined(__cplusplus)\n}',
     '#define DRM_IOCTL_CCORE_NEW \\\n'
     '\tDRM_IOW(DRM_COMMAND_BASE + 0x16, struct drm_ccore_cc_trigger)\n#if defined(__cplusplus)\n}',
     'DRM_IOCTL_CCORE_NEW of uapi/drm/ccore_accel.h is not described'),
    ('a new opcode in the header', 'header',
     '\tDRM_CCORE_OP_STARTI = 0x11,\n',
     '\tDRM_CCORE_OP_STARTI = 0x11,\n\tDRM_CCORE_OP_NEW = 0x12,\n',
     'missing DRM_CCORE_OP_NEW'),
    ('a new flag in the header', 'header',
     '#define DRM_CCORE_JOB_F_TRIGGER\t\t(1u << 0)\n',
     '#define DRM_CCORE_JOB_F_TRIGGER\t\t(1u << 0)\n#define DRM_CCORE_JOB_F_NEW\t\t(1u << 1)\n',
     'flag DRM_CCORE_JOB_F_NEW of uapi/drm/ccore_accel.h is not described'),
    ('a resource no call makes', 'txt',
     '\tfd\tfd_ccore_sem\t(out)', '\tfd\tfd_ccore_sem\t(in)',
     'resource fd_ccore_sem is never made'),
    ('a flags list nothing uses', 'txt',
     'ccore_job_flags = DRM_CCORE_JOB_F_TRIGGER\n',
     'ccore_job_flags = DRM_CCORE_JOB_F_TRIGGER\nccore_unused = 1\n',
     'flags ccore_unused is not used'),
]


def self_test(txt, const_text, header, args, generic):
    """Every mutation must be rejected with its complaint; the ones that were not."""
    failures = []
    for what, which, old, new, expected in MUTATIONS:
        files = {'txt': txt, 'const': const_text, 'header': header}
        if files[which].count(old) != 1:
            failures.append('self-test: cannot break "%s": %r occurs %d times'
                            % (what, old, files[which].count(old)))
            continue
        files[which] = files[which].replace(old, new)
        found = check(files['txt'], files['const'], files['header'], args, generic)
        hits = [line for p in found for line in p.split('\n') if expected in line]
        if hits:
            print('self-test: %s: rejected: %s' % (what, hits[0]))
        else:
            failures.append('self-test: %s was not reported as "%s"; got: %s'
                            % (what, expected, found or 'no problem at all'))
    return failures


def match_syscall(name, pattern):
    """syz-manager's rule: exact, NAME$variant, or a prefix ending in '*'."""
    return (name == pattern or name.startswith(pattern + '$') or
            (len(pattern) > 1 and pattern.endswith('*') and name.startswith(pattern[:-1])))


def check_config(path, txt, args):
    try:
        cfg = json.loads(read_text(path))
    except ValueError as e:
        return ['%s: not valid JSON: %s' % (path, e)]
    calls = {c[0] for c in parse_description(txt, args.description, []).calls} | EXTERNAL_CALLS
    problems = ['%s: has no "%s"' % (path, key)
                for key in ('target', 'type', 'vm', 'enable_syscalls') if key not in cfg]
    for pattern in cfg.get('enable_syscalls', []):
        if not any(match_syscall(c, pattern) for c in calls):
            problems.append('%s: enable_syscalls: %s matches no call of %s'
                            % (path, pattern, args.description))
    return problems


def write_const(txt, args):
    """The .const file, from a program printing every constant the description uses."""
    names = sorted(used_consts(parse_description(txt, args.description, [])))
    src = ['#define _GNU_SOURCE', '#include <stdio.h>', '#include <fcntl.h>',
           '#include <sys/syscall.h>', '#include "%s"' % os.path.basename(args.header),
           'int main(void)', '{']
    src += ['\tprintf("%s = %%llu\\n", (unsigned long long)(%s));' % (n, n) for n in names]
    src += ['\treturn 0;', '}']
    with tempfile.TemporaryDirectory() as tmp:
        c, exe = os.path.join(tmp, 'consts.c'), os.path.join(tmp, 'consts')
        with open(c, 'w', encoding='utf-8') as f:
            f.write('\n'.join(src) + '\n')
        inc = [os.path.dirname(args.header) or '.'] + args.include
        subprocess.run(args.cc.split() + ['-o', exe, c] + ['-I' + i for i in inc], check=True)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    with open(args.const, 'w', encoding='utf-8') as f:
        f.write('# Code generated by tools/syzkaller/syz-check.py --write-const. DO NOT EDIT.\n')
        f.write('arches = amd64\n' + out)
    print('wrote %s: %d constants' % (args.const, len(names)))


def guest_probes(txt, args):
    """'open PATH' (a # is a digit) and 'glob PATTERN' for every file name a
    call opens, 'strings LIST VALUE...' for every list of strings."""
    d = parse_description(txt, args.description, [])
    lines = ['# what %s assumes of a running system: syz-check.py --guest-probes'
             % args.description]

    def walk(t):
        if not isinstance(t, Type):
            return
        if t.name in ('string', 'glob') and t.args and t.args[0][0] == 'str':
            lines.append('%s %s' % ('glob' if t.name == 'glob' else 'open', t.args[0][1][1:-1]))
        for a in t.args:
            walk(a)

    for name, call_args, _ in d.calls:
        if base_name(name) in ('syz_open_dev', 'openat'):
            for _, t in call_args:
                walk(t)
    for name, (values, _) in sorted(d.str_flags.items()):
        lines.append('strings %s %s' % (name, ' '.join(v[1][1:-1] for v in values)))
    with open(args.guest_probes, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


def typical_value(d, consts, t):
    """What a typical instance holds in a field of type @t: ('value', n) or
    ('resource', name); a const its value, flags their first non-zero value,
    an integer 1 (or the low end of a range without 1)."""
    def const_value(v):
        return v[1] if v[0] == 'num' else consts[v[1]][0]

    if t.name in d.aliases:
        return typical_value(d, consts, d.aliases[t.name][0])
    if t.name in d.resources:
        return ('resource', t.name)
    if t.name == 'const':
        a = t.args[0]
        return ('value', const_value(a if not isinstance(a, Type) else ('ident', a.name)))
    if t.name == 'flags':
        values = [const_value(v) for v in d.flags[t.args[0].name][0]]
        return ('value', next((v for v in values if v), 0))
    if t.name in INT_SIZES:
        rng = t.args[0] if t.args and t.args[0][0] == 'range' else None
        if rng and not rng[1][1] <= 1 <= rng[2][1]:
            return ('value', rng[1][1])
        return ('value', 1)
    raise ValueError('no typical value for %r' % t)


def variants_header(txt, const_text, args):
    """Every option but raw of the drm_* unions, field by field (nested
    structs flattened), as a C table."""
    problems = []
    d = parse_description(txt, args.description, problems)
    consts = read_const_file(const_text, args.const, problems)
    lay = Layout(d)
    rows, resources = [], set()

    def fields_of(sname, base):
        out = []
        for (fname, off, size), (_, ftype, _, _) in zip(lay.struct_layout(sname)[2],
                                                         d.structs[sname][0]):
            if ftype.name in d.structs:
                out += fields_of(ftype.name, base + off)
                continue
            kind, v = typical_value(d, consts, ftype)
            if kind == 'resource':
                resources.add(v)
                out.append('{ %d, %d, SYZ_RES_%s, 0 }' % (base + off, size, v))
            else:
                out.append('{ %d, %d, SYZ_VALUE, %dULL }' % (base + off, size, v & (2**64 - 1)))
        return out

    for uname, (options, _, _) in sorted(d.unions.items()):
        if not is_c_struct(uname):
            continue
        for oname, otype, _, _ in options:
            if oname == 'raw':
                continue
            f = fields_of(otype.name, 0)
            rows.append('\t{ "%s", "%s", %d, %d, {\n\t\t%s,\n\t} },'
                        % (otype.name, uname, lay.struct_layout(otype.name)[0], len(f),
                           ',\n\t\t'.join(f)))
    lines = ['/* Generated by tools/syzkaller/syz-check.py --variants-h from %s. */'
             % args.description,
             '#define SYZ_MAX_FIELDS 16',
             'enum syz_kind { SYZ_VALUE, %s };'
             % ', '.join('SYZ_RES_' + r for r in sorted(resources)),
             'struct syz_field { unsigned int offset, size; enum syz_kind kind; '
             'unsigned long long value; };',
             'struct syz_variant {',
             '\tconst char *name, *c_struct;',
             '\tunsigned int size, nfields;',
             '\tstruct syz_field fields[SYZ_MAX_FIELDS];',
             '};',
             'static const struct syz_variant syz_variants[] = {'] + rows + ['};']
    with open(args.variants_h, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument('description', nargs='?')
    p.add_argument('--const')
    p.add_argument('--header', default='uapi/drm/ccore_accel.h')
    p.add_argument('-I', dest='include', action='append')
    p.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    p.add_argument('--c-out')
    p.add_argument('--self-test', action='store_true')
    p.add_argument('--config')
    p.add_argument('--write-const', action='store_true')
    p.add_argument('--guest-probes')
    p.add_argument('--variants-h')
    p.add_argument('-h', '--help', action='store_true')
    args, extra = p.parse_known_args()
    if args.help:
        print(__doc__.strip())
        return 0
    if extra or not args.description:
        print('syz-check.py: %s; see --help' % ('unexpected argument %r' % extra[0] if extra
                                                 else 'expected one DESCRIPTION.txt'),
              file=sys.stderr)
        return 2
    args.const = args.const or args.description + '.const'
    args.include = args.include or ['/usr/include/libdrm']
    needed = [args.description, args.header] + ([] if args.write_const or args.guest_probes
                                                 else [args.const])
    for path in needed + ([args.config] if args.config else []):
        if not os.path.isfile(path):
            print('syz-check.py: %s: no such file' % path, file=sys.stderr)
            return 2
    txt = read_text(args.description)
    if args.write_const:
        write_const(txt, args)
        return 0
    if args.guest_probes:
        guest_probes(txt, args)
        return 0
    const_text, header = read_text(args.const), read_text(args.header)
    if args.variants_h:
        variants_header(txt, const_text, args)
        return 0
    generic = [read_text(os.path.join(i, 'drm.h')) for i in args.include
               if os.path.isfile(os.path.join(i, 'drm.h'))]
    problems = check(txt, const_text, header, args, generic, args.c_out)
    if not problems and args.self_test:
        problems = self_test(txt, const_text, header, args, generic)
    if not problems and args.config:
        problems = check_config(args.config, txt, args)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print('syz-check.py: %s: not consistent (see above)' % args.description, file=sys.stderr)
        return 1
    print('syz-check.py: %s matches %s' % (args.description, args.header))
    return 0


if __name__ == '__main__':
    sys.exit(main())

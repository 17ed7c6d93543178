#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check syzkaller descriptions of ccore's uAPI against the C headers.

Syzkaller itself (syz-sysgen) cannot run here, so this reads the subset of
syzlang that dev_ccore.txt uses and checks what a wrong description would
get silently wrong while fuzzing:

  - every ioctl of uapi/drm/ccore_accel.h is described, with the header's
    argument struct and the pointer direction its DRM_IOW/DRM_IOWR implies;
  - every field an ioctl's kernel-doc calls "out:" is (out);
  - every enum of the header is one flags list, and every DRM_CCORE_*_F_*
    flag is described;
  - every constant the description uses is in the .const file, and
    every structure named after a C struct (drm_*, with a $variant suffix)
    has that struct's field names, order, sizes and offsets, computed by
    syzlang's layout rules (amd64).

The last two are _Static_asserts in a generated C file that is compiled
with the headers: the .const values, sizeof/offsetof, _IOC_SIZE/_IOC_DIR.

Usage: syz-check.py [options] DESCRIPTION.txt
  --const FILE      the constants (default: DESCRIPTION.txt.const)
  --header FILE     the driver's uAPI header (default: uapi/drm/ccore_accel.h)
  -I DIR            include directory for the compiler and for finding the
                    headers that define generic DRM ioctls (repeatable;
                    default: uapi/drm and /usr/include/libdrm)
  --cc CC           C compiler (default: $CC, else cc)
  --c-out FILE      keep the generated C file there
  --self-test       also check that broken copies of the description are
                    rejected (each known kind of mistake once)
  --config FILE     also check a syz-manager config: valid JSON whose
                    enable_syscalls all name calls that exist
  --write-const     rewrite the .const file from the headers (amd64 host)
  -h, --help        this text

Exit status: 0 if consistent, 1 if not (each problem is printed as
FILE:LINE: what is wrong), 2 for bad usage.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# What other files of syzkaller's sys/linux/ define that ours uses.
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
# Calls of other files a sample config may enable on our resources.
EXTERNAL_CALLS = {'close', 'dup', 'ioctl$DMA_BUF_IOCTL_SYNC', 'ioctl$SYNC_IOC_FILE_INFO',
                  'ioctl$SYNC_IOC_MERGE'}
# Enums of the header no input field takes: nothing to describe.
ENUMS_NOT_INPUT = {'drm_ccore_topology': 'GET_PARAM reports it, no ioctl takes it'}

INT_SIZES = {'int8': 1, 'int16': 2, 'int32': 4, 'int64': 8, 'intptr': 8}
for _n, _s in list(INT_SIZES.items()):
    INT_SIZES[_n + 'be'] = _s
BUILTIN_ALIASES = {'bool8': 'int8', 'bool16': 'int16', 'bool32': 'int32', 'bool64': 'int64',
                   'boolptr': 'intptr'}
# Types whose last argument is the integer type they are stored as.
SIZED_BY_LAST_ARG = {'const', 'flags', 'len', 'bytesize', 'bytesize2', 'bytesize4', 'bytesize8',
                     'bitsize', 'proc', 'offsetof'}
POINTERS = {'ptr': 8, 'ptr64': 8, 'vma': 8, 'vma64': 8}  # amd64
VARLEN_TYPES = {'string', 'stringnoz', 'fmt', 'glob', 'optional', 'text', 'compressed_image'}
BUILTIN_TYPES = (set(INT_SIZES) | set(BUILTIN_ALIASES) | SIZED_BY_LAST_ARG | set(POINTERS) |
                 VARLEN_TYPES | {'array', 'void', 'filename', 'buffer', 'fileoff'})
DIRS = {'in', 'out', 'inout'}


class Problems:
    """Collects FILE:LINE: messages."""

    def __init__(self):
        self.items = []

    def add(self, where, msg):
        self.items.append('%s: %s' % (where, msg))


class VarLen(Exception):
    pass


# --- syzlang subset ---------------------------------------------------------

TOKEN_RE = re.compile(r'''
    (?P<ws>[ \t]+)
  | (?P<str>"[^"\n]*"|`[^`\n]*`)
  | (?P<char>'[^'\n]')
  | (?P<num>-?(?:0x[0-9a-fA-F]+|[0-9]+))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<punct>[\[\]{}(),:=<>])
''', re.X)


def strip_comment(line):
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in '"`':
            quote = ch
        elif ch == '#':
            return line[:i]
    return line


def tokenize(line, where, problems):
    toks, pos = [], 0
    while pos < len(line):
        m = TOKEN_RE.match(line, pos)
        if not m:
            problems.add(where, 'cannot read %r' % line[pos:])
            return []
        pos = m.end()
        kind = m.lastgroup
        if kind != 'ws':
            toks.append((kind, m.group(kind)))
    return toks


class Type:
    """name[args]; args are Type, ('num', int), ('ident', str), ('str', s), ('range', a, b)."""

    def __init__(self, name, args, where):
        self.name, self.args, self.where = name, args, where

    def __repr__(self):
        return '%s%s' % (self.name, self.args and '[%s]' % ', '.join(map(repr, self.args)) or '')


class TokenStream:
    def __init__(self, toks, where):
        self.toks, self.i, self.where = toks, 0, where

    def peek(self, k=0):
        return self.toks[self.i + k] if self.i + k < len(self.toks) else (None, None)

    def take(self, kind=None, text=None):
        tok = self.peek()
        if tok[0] is None or (kind and tok[0] != kind) or (text and tok[1] != text):
            raise SyntaxError('expected %s, found %s' % (text or kind, tok[1] or 'end of line'))
        self.i += 1
        return tok

    def at(self, text):
        return self.peek()[1] == text

    def done(self):
        return self.i >= len(self.toks)


def parse_value(ts):
    kind, text = ts.peek()
    if kind == 'num':
        ts.take()
        return ('num', int(text, 0))
    if kind in ('str', 'char'):
        ts.take()
        return ('str', text)
    return parse_type(ts)


def parse_arg(ts):
    v = parse_value(ts)
    if ts.at(':'):
        ts.take()
        return ('range', v, parse_value(ts))
    return v


def parse_type(ts):
    _, name = ts.take('ident')
    args = []
    if ts.at('['):
        ts.take()
        args.append(parse_arg(ts))
        while ts.at(','):
            ts.take()
            args.append(parse_arg(ts))
        ts.take(text=']')
    return Type(name, args, ts.where)


def parse_attrs(ts):
    attrs = []
    if ts.at('('):
        ts.take()
        while not ts.at(')'):
            attrs.append(ts.take('ident')[1])
            if ts.at(','):
                ts.take()
        ts.take(text=')')
    return attrs


class Description:
    def __init__(self):
        self.resources = {}   # name -> (base, specials, where)
        self.aliases = {}     # name -> Type
        self.flags = {}       # name -> ([values], where); values ('num', n) or ('ident', s)
        self.str_flags = {}
        self.structs = {}     # name -> (fields [(name, Type, attrs, where)], attrs, where)
        self.unions = {}
        self.calls = []       # (name, [(arg, Type)], ret Type or None, where)
        self.defines = set()
        self.meta = []


def parse_description(text, fname, problems):
    d = Description()
    block = None  # (kind, name, fields, where)
    for lineno, raw in enumerate(text.split('\n'), 1):
        where = '%s:%d' % (fname, lineno)
        line = strip_comment(raw).strip()
        if not line:
            continue
        try:
            if block:
                kind, name, fields, bwhere = block
                if line[0] == ('}' if kind == 'struct' else ']'):
                    ts = TokenStream(tokenize(line[1:], where, problems), where)
                    attrs = []
                    if ts.at('['):
                        ts.take()
                        while not ts.at(']'):
                            attrs.append(parse_arg(ts))
                            if ts.at(','):
                                ts.take()
                        ts.take(text=']')
                    table = d.structs if kind == 'struct' else d.unions
                    if name in table or name in d.structs or name in d.unions:
                        problems.add(where, '%s is defined twice' % name)
                    table[name] = (fields, attrs, bwhere)
                    block = None
                    continue
                ts = TokenStream(tokenize(line, where, problems), where)
                fname_ = ts.take('ident')[1]
                ftype = parse_type(ts)
                attrs = parse_attrs(ts)
                if not ts.done():
                    raise SyntaxError('unexpected %s' % ts.peek()[1])
                fields.append((fname_, ftype, attrs, where))
                continue
            first = line.split(None, 1)[0]
            if first in ('include', 'incdir'):
                continue
            if first == 'meta':
                d.meta.append((line.split(None, 1)[1], where))
                continue
            ts = TokenStream(tokenize(line, where, problems), where)
            if first == 'define':
                ts.take()
                d.defines.add(ts.take('ident')[1])
                continue
            if first == 'resource':
                ts.take()
                name = ts.take('ident')[1]
                ts.take(text='[')
                base = ts.take('ident')[1]
                ts.take(text=']')
                specials = []
                if ts.at(':'):
                    ts.take()
                    specials.append(parse_value(ts))
                    while ts.at(','):
                        ts.take()
                        specials.append(parse_value(ts))
                d.resources[name] = (base, specials, where)
                continue
            if first == 'type':
                ts.take()
                name = ts.take('ident')[1]
                if ts.at('['):
                    raise SyntaxError('type templates are not supported by this check')
                d.aliases[name] = parse_type(ts)
                continue
            name = ts.take('ident')[1]
            if ts.at('='):
                ts.take()
                values = [parse_value(ts)]
                while ts.at(','):
                    ts.take()
                    values.append(parse_value(ts))
                vals = [('ident', v.name) if isinstance(v, Type) else v for v in values]
                if all(v[0] == 'str' for v in vals):
                    d.str_flags[name] = (vals, where)
                else:
                    d.flags[name] = (vals, where)
                continue
            if ts.at('{') or ts.at('['):
                block = ('struct' if ts.at('{') else 'union', name, [], where)
                continue
            if ts.at('('):
                ts.take()
                args = []
                while not ts.at(')'):
                    aname = ts.take('ident')[1]
                    args.append((aname, parse_type(ts)))
                    if ts.at(','):
                        ts.take()
                ts.take(text=')')
                ret = None
                if not ts.done() and not ts.at('('):
                    ret = parse_type(ts)
                parse_attrs(ts)
                d.calls.append((name, args, ret, where))
                continue
            raise SyntaxError('cannot tell what %r declares' % first)
        except SyntaxError as e:
            problems.add(where, str(e))
    if block:
        problems.add(block[3], '%s %s is not closed' % (block[0], block[1]))
    return d


# --- layout (syzlang's rules, amd64) ---------------------------------------

class Layout:
    def __init__(self, desc, problems):
        self.d, self.problems, self.cache = desc, problems, {}

    def resource_int(self, name):
        seen = set()
        while name not in INT_SIZES:
            if name in seen:
                raise KeyError(name)
            seen.add(name)
            if name in self.d.resources:
                name = self.d.resources[name][0]
            elif name in EXTERNAL_RESOURCES:
                name = EXTERNAL_RESOURCES[name]
            else:
                raise KeyError(name)
        return name

    def int_of(self, t):
        """The integer type a const/flags/len/... is stored as."""
        last = t.args[-1] if t.args else None
        if not isinstance(last, Type) or last.name not in INT_SIZES:
            raise ValueError('%s needs its integer type (int8..int64) as last argument' % t.name)
        return last.name

    def size_align(self, t):
        """(size, align) of Type @t; raises VarLen for variable-size types."""
        n = t.name
        if n in INT_SIZES:
            return INT_SIZES[n], INT_SIZES[n]
        if n in BUILTIN_ALIASES:
            s = INT_SIZES[BUILTIN_ALIASES[n]]
            return s, s
        if n in SIZED_BY_LAST_ARG:
            s = INT_SIZES[self.int_of(t)]
            return s, s
        if n in POINTERS:
            return POINTERS[n], POINTERS[n]
        if n == 'array':
            if len(t.args) == 2 and t.args[1][0] == 'num':
                s, a = self.size_align(t.args[0])
                return s * t.args[1][1], a
            raise VarLen('%r has no fixed length' % t)
        if n in VARLEN_TYPES:
            raise VarLen('%s is variable-size' % n)
        if n == 'void':
            return 0, 1
        if n in self.d.aliases:
            return self.size_align(self.d.aliases[n])
        if n in self.d.resources or n in EXTERNAL_RESOURCES:
            s = INT_SIZES[self.resource_int(n)]
            return s, s
        if n in self.d.structs:
            return self.struct_layout(n)[0:2]
        if n in self.d.unions:
            return self.union_layout(n)
        raise ValueError('unknown type %s' % n)

    def struct_layout(self, name):
        """(size, align, [(field, offset, size)])."""
        if name in self.cache:
            return self.cache[name]
        fields, attrs, where = self.d.structs[name]
        names = [a.name for a in attrs if isinstance(a, Type)]
        packed = 'packed' in names
        off, align, out = 0, 1, []
        for fname, ftype, _, fwhere in fields:
            s, a = self.size_align(ftype)
            if packed:
                a = 1
            off = (off + a - 1) // a * a
            out.append((fname, off, s))
            off += s
            align = max(align, a)
        for a in attrs:
            if isinstance(a, Type) and a.name == 'align' and a.args:
                align = a.args[0][1]
        size = (off + align - 1) // align * align
        for a in attrs:
            if isinstance(a, Type) and a.name == 'size' and a.args:
                size = max(size, a.args[0][1])
        self.cache[name] = (size, align, out)
        return self.cache[name]

    def union_layout(self, name):
        options, attrs, where = self.d.unions[name]
        if any(isinstance(a, Type) and a.name == 'varlen' for a in attrs):
            raise VarLen('union %s is varlen' % name)
        size, align = 0, 1
        for _, otype, _, _ in options:
            s, a = self.size_align(otype)
            size, align = max(size, s), max(align, a)
        return (size + align - 1) // align * align, align


# --- the C headers ----------------------------------------------------------

def read_text(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def header_ioctls(text):
    """DRM_IOCTL_X -> (dir macro, struct name) from #define ... DRM_IOW*(..., struct y)."""
    text = text.replace('\\\n', ' ')
    out = {}
    for m in re.finditer(r'#define\s+(DRM_IOCTL_\w+)\s+(DRM_IO[RW]*)\s*\(([^()]*),\s*struct\s+(\w+)\s*\)',
                         text):
        out[m.group(1)] = (m.group(2), m.group(4))
    return out


def header_enums(text):
    out = {}
    for m in re.finditer(r'enum\s+(\w+)\s*\{(.*?)\};', text, re.S):
        body = re.sub(r'/\*.*?\*/', '', m.group(2), flags=re.S)
        out[m.group(1)] = re.findall(r'^\s*(\w+)\s*=', body, re.M)
    return out


def header_out_fields(text):
    """struct -> set of fields whose kernel-doc starts with 'out:'."""
    out = {}
    for m in re.finditer(r'struct\s+(\w+)\s*\{(.*?)\n\};', text, re.S):
        doc = re.sub(r'\n\s*\*\s?', ' ', m.group(2))
        out[m.group(1)] = set(re.findall(r'@(\w+):\s*out:', doc))
    return out


def base_name(name):
    return name.split('$', 1)[0]


def is_c_struct(name):
    return base_name(name).startswith('drm_')


# --- the check ----------------------------------------------------------------

def used_consts(d, lay):
    """Constant names the description needs a value for, with where each is first used."""
    used = {}

    def note(name, where):
        if name not in d.defines:
            used.setdefault(name, where)

    def walk(t, where):
        if isinstance(t, tuple):
            if t[0] == 'range':
                walk(t[1], where)
                walk(t[2], where)
            return
        known = (t.name in BUILTIN_TYPES or t.name in d.aliases or t.name in d.resources or
                 t.name in EXTERNAL_RESOURCES or t.name in d.structs or t.name in d.unions or
                 t.name in DIRS or t.name in d.flags or t.name in d.str_flags or
                 t.name in EXTERNAL_FLAGS or t.name in ('dec', 'hex', 'oct'))
        if t.name == 'const' and t.args and isinstance(t.args[0], Type):
            note(t.args[0].name, where)
            for a in t.args[1:]:
                walk(a, where)
            return
        if t.name in ('len', 'bytesize', 'bitsize') and t.args:
            for a in t.args[1:]:
                walk(a, where)
            return
        if not known and not t.args:
            note(t.name, where)  # a constant: array size, range bound, value
            return
        for a in t.args:
            walk(a, where)

    for name, (vals, where) in d.flags.items():
        for v in vals:
            if v[0] == 'ident':
                note(v[1], where)
    for name, (base, specials, where) in d.resources.items():
        for v in specials:
            if isinstance(v, Type):
                note(v.name, where)
    for name, t in d.aliases.items():
        walk(t, t.where)
    for table in (d.structs, d.unions):
        for name, (fields, attrs, where) in table.items():
            for _, ftype, _, fwhere in fields:
                walk(ftype, fwhere)
    for name, args, ret, where in d.calls:
        for _, t in args:
            walk(t, where)
        if not name.startswith('syz_'):
            note('__NR_' + base_name(name), where)
    return used


def read_const_file(text, fname, problems):
    values, arches = {}, None
    for lineno, line in enumerate(text.split('\n'), 1):
        where = '%s:%d' % (fname, lineno)
        if not line or line.startswith('#'):
            continue
        if '=' not in line:
            problems.add(where, "expected NAME = VALUE")
            continue
        name, val = (s.strip() for s in line.split('=', 1))
        if arches is None:
            if name != 'arches':
                problems.add(where, 'the first line must be "arches = amd64"')
            arches = [a.strip() for a in val.split(',')]
            continue
        if ',' in val or ':' in val:
            problems.add(where, '%s: per-arch values are not supported (amd64 only)' % name)
            continue
        try:
            values[name] = (int(val, 0), where)
        except ValueError:
            problems.add(where, '%s: %r is not a number' % (name, val))
    if arches != ['amd64']:
        problems.add('%s:1' % fname, 'arches must be exactly amd64 (the check runs there), got %s'
                     % arches)
    return values


class Checker:
    def __init__(self, txt, txt_name, const_text, const_name, header_text, header_name,
                 generic_headers):
        self.problems = Problems()
        self.txt_name, self.const_name, self.header_name = txt_name, const_name, header_name
        self.d = parse_description(txt, txt_name, self.problems)
        self.lay = Layout(self.d, self.problems)
        self.consts = read_const_file(const_text, const_name, self.problems)
        self.header = header_text
        self.ioctls = header_ioctls(header_text)
        self.generic_ioctls = {}
        for text in generic_headers:
            self.generic_ioctls.update(header_ioctls(text))
        self.c = []

    def assert_c(self, cond, where, msg):
        self.c.append('_Static_assert(%s, "%s: %s");' % (cond, where, msg.replace('"', "'")))

    def check_names(self):
        d = self.d
        for name, (base, _, where) in d.resources.items():
            try:
                self.lay.resource_int(name)
            except KeyError:
                self.problems.add(where, 'resource %s: base %s is not a resource or int type'
                                  % (name, base))
        for table in (d.structs, d.unions):
            for sname, (fields, _, _) in table.items():
                for fname, ftype, attrs, fwhere in fields:
                    self.check_type_names(ftype, fwhere)
                    for a in attrs:
                        if a not in DIRS:
                            self.problems.add(fwhere, '%s.%s: unknown attribute %s' % (sname, fname, a))
        for cname, args, ret, where in d.calls:
            for _, t in args:
                self.check_type_names(t, where)

    def check_type_names(self, t, where):
        if not isinstance(t, Type):
            if t[0] == 'range':
                self.check_type_names(t[1], where)
                self.check_type_names(t[2], where)
            return
        d = self.d
        known = (t.name in BUILTIN_TYPES or t.name in d.aliases or t.name in d.resources or
                 t.name in EXTERNAL_RESOURCES or t.name in d.structs or t.name in d.unions)
        if t.args and not known:
            self.problems.add(where, 'unknown type %s' % t.name)
        if t.name == 'flags' and t.args:
            f = t.args[0]
            if not (isinstance(f, Type) and (f.name in d.flags or f.name in d.str_flags or
                                             f.name in EXTERNAL_FLAGS)):
                self.problems.add(where, 'flags[%r]: no such flags list' % f)
        if t.name in ('stringnoz', 'string') and t.args and isinstance(t.args[0], Type):
            if t.args[0].name not in d.str_flags and t.args[0].name != 'filename':
                self.problems.add(where, '%s[%s]: no such string list' % (t.name, t.args[0].name))
        for a in t.args:
            if isinstance(a, Type) and a.name in set(INT_SIZES) | {'dec', 'hex', 'oct'} | DIRS:
                continue
            if isinstance(a, Type) and not a.args and a.name not in d.structs and \
                    a.name not in d.unions and a.name not in d.aliases and \
                    a.name not in d.resources and a.name not in EXTERNAL_RESOURCES and \
                    a.name not in BUILTIN_TYPES:
                continue  # a constant or a field name (len), checked elsewhere
            self.check_type_names(a, where)

    def check_consts(self):
        used = used_consts(self.d, self.lay)
        for name, where in sorted(used.items()):
            if name not in self.consts:
                self.problems.add(where, '%s is not in %s' % (name, self.const_name))
        for name, (value, where) in sorted(self.consts.items()):
            if name not in used:
                self.problems.add(where, '%s is not used by %s' % (name, self.txt_name))
                continue
            self.assert_c('(unsigned long long)(%s) == %dULL' % (name, value), where,
                          '%s is %d here, not what the headers say' % (name, value))

    def struct_fields_c(self, name, fields, layout, where):
        cname = 'struct ' + base_name(name)
        size, _, offs = layout
        self.assert_c('sizeof(%s) == %d' % (cname, size), where,
                      '%s is %d bytes by syzlang rules, sizeof(%s) differs' % (name, size, cname))
        for (fname, off, fsize), (_, _, _, fwhere) in zip(offs, fields):
            self.c.append('/* %s: %s.%s */' % (fwhere, name, fname))
            self.assert_c('offsetof(%s, %s) == %d' % (cname, fname, off), fwhere,
                          '%s.%s is at offset %d by syzlang rules, not in %s'
                          % (name, fname, off, cname))
            self.assert_c('sizeof(((%s *)0)->%s) == %d' % (cname, fname, fsize), fwhere,
                          '%s.%s is %d bytes by syzlang rules, not in %s'
                          % (name, fname, fsize, cname))

    def check_structs(self):
        d = self.d
        for name, (fields, attrs, where) in d.structs.items():
            if not is_c_struct(name):
                continue
            try:
                layout = self.lay.struct_layout(name)
            except (VarLen, ValueError) as e:
                self.problems.add(where, '%s: %s (a C struct has a fixed layout)' % (name, e))
                continue
            self.struct_fields_c(name, fields, layout, where)
        for name, (options, attrs, where) in d.unions.items():
            if not is_c_struct(name):
                continue
            for oname, otype, _, owhere in options:
                if base_name(otype.name) != base_name(name) or otype.name not in d.structs:
                    self.problems.add(owhere, 'union %s: option %s must be a struct %s$variant'
                                      % (name, oname, base_name(name)))
            try:
                size, _ = self.lay.union_layout(name)
            except (VarLen, ValueError) as e:
                self.problems.add(where, '%s: %s' % (name, e))
                continue
            self.assert_c('sizeof(struct %s) == %d' % (base_name(name), size), where,
                          'union %s is %d bytes by syzlang rules, sizeof(struct %s) differs'
                          % (name, size, base_name(name)))

    def check_directions(self):
        outs = header_out_fields(self.header)
        for name, (fields, _, where) in self.d.structs.items():
            doc_out = outs.get(base_name(name))
            if doc_out is None:
                continue
            for fname, ftype, attrs, fwhere in fields:
                if fname in doc_out and 'out' not in attrs:
                    self.problems.add(fwhere, '%s.%s: the header documents it as out:, mark it (out)'
                                      % (name, fname))

    def struct_has_out(self, name):
        if name in self.d.structs:
            return any('out' in attrs for _, _, attrs, _ in self.d.structs[name][0])
        if name in self.d.unions:
            return any(self.struct_has_out(t.name) for _, t, _, _ in self.d.unions[name][0])
        return False

    def check_ioctls(self):
        described = {}
        for cname, args, ret, where in self.d.calls:
            if base_name(cname) != 'ioctl':
                continue
            if len(args) != 3 or args[1][1].name != 'const' or not args[1][1].args:
                self.problems.add(where, '%s: expected (fd, cmd const[...], arg ptr[...])' % cname)
                continue
            cmd = args[1][1].args[0].name
            arg = args[2][1]
            if arg.name not in ('ptr', 'ptr64') or len(arg.args) != 2:
                self.problems.add(where, '%s: arg must be ptr[DIR, STRUCT]' % cname)
                continue
            pdir, pointee = arg.args[0].name, arg.args[1]
            if cmd in self.ioctls:
                macro, cstruct = self.ioctls[cmd]
                described.setdefault(cmd, where)
                want = {'DRM_IOW': 'in', 'DRM_IOWR': 'inout', 'DRM_IOR': 'out'}[macro]
                if pdir != want:
                    self.problems.add(where, '%s: %s is %s in %s: the argument must be ptr[%s, ...]'
                                      % (cname, cmd, macro, self.header_name, want))
            elif cmd in self.generic_ioctls:
                macro, cstruct = self.generic_ioctls[cmd]
            else:
                self.problems.add(where, '%s: %s is not an ioctl of %s or the DRM headers'
                                  % (cname, cmd, self.header_name))
                continue
            if base_name(pointee.name) != cstruct:
                self.problems.add(where, '%s: %s takes struct %s, not %s'
                                  % (cname, cmd, cstruct, pointee.name))
            if pdir == 'in' and self.struct_has_out(pointee.name):
                self.problems.add(where, '%s: %s has (out) fields but the pointer is in'
                                  % (cname, pointee.name))
            bit = {'in': '_IOC_WRITE', 'out': '_IOC_READ', 'inout': '(_IOC_READ | _IOC_WRITE)'}[pdir]
            self.assert_c('(_IOC_DIR(%s) & %s) == %s' % (cmd, bit, bit), where,
                          '%s: ptr[%s] but _IOC_DIR(%s) does not allow it' % (cname, pdir, cmd))
            try:
                size, _ = self.lay.size_align(pointee)
                self.assert_c('_IOC_SIZE(%s) == %d' % (cmd, size), where,
                              '%s: %s is %d bytes by syzlang rules, not _IOC_SIZE(%s)'
                              % (cname, pointee.name, size, cmd))
            except (VarLen, ValueError) as e:
                self.problems.add(where, '%s: %s' % (cname, e))
        for cmd in sorted(set(self.ioctls) - set(described)):
            self.problems.add(self.txt_name, '%s of %s is not described' % (cmd, self.header_name))
        if described:
            # The described ccore ioctls are exactly numbers 0..N-1 after the base.
            mask = ' | '.join('(1ULL << (_IOC_NR(%s) - DRM_COMMAND_BASE))' % c for c in sorted(described))
            self.assert_c('(%s) == (1ULL << %d) - 1' % (mask, len(described)), self.txt_name,
                          'the ccore ioctls described are not numbers 0..%d' % (len(described) - 1))

    def check_enums_and_flags(self):
        lists = {name: {v[1] for v in vals if v[0] == 'ident'} for name, (vals, _) in
                 self.d.flags.items()}
        used = used_consts(self.d, self.lay)
        for enum, members in sorted(header_enums(self.header).items()):
            if enum in ENUMS_NOT_INPUT:
                continue
            if not any(s == set(members) for s in lists.values()):
                best = max(lists.items(), key=lambda kv: len(kv[1] & set(members)),
                           default=(None, set()))
                missing = sorted(set(members) - best[1])
                self.problems.add(self.txt_name, 'enum %s of %s: no flags list has exactly its '
                                  'members (closest: %s, missing %s)'
                                  % (enum, self.header_name, best[0], ', '.join(missing) or
                                     'none, but it has others'))
        for flag in sorted(set(re.findall(r'#define\s+(DRM_CCORE_\w+_F_\w+)\s', self.header))):
            if flag not in used:
                self.problems.add(self.txt_name, 'flag %s of %s is not described'
                                  % (flag, self.header_name))

    def check_meta(self):
        metas = [m for m, _ in self.d.meta]
        if 'noextract' not in metas:
            self.problems.add(self.txt_name, 'needs "meta noextract": the header is not in the '
                              'kernel tree, the .const file is written by hand')
        if 'arches["amd64"]' not in metas:
            self.problems.add(self.txt_name, 'needs meta arches["amd64"]: the .const has amd64 only')

    def run(self):
        self.check_meta()
        self.check_names()
        self.check_ioctls()
        self.check_consts()
        self.check_structs()
        self.check_directions()
        self.check_enums_and_flags()
        return self.problems.items

    def c_source(self, header_base):
        lines = [
            '/* Generated by tools/syzkaller/syz-check.py from %s: do not edit. */' % self.txt_name,
            '#define _GNU_SOURCE',
            '#include <stddef.h>',
            '#include <fcntl.h>',
            '#include <sys/syscall.h>',
            '#include "%s"' % header_base,
            '',
        ]
        return '\n'.join(lines + self.c) + '\n'


def compile_c(source, cc, includes, keep=None):
    """Compile @source; None if it compiles, else the compiler's complaint."""
    with tempfile.TemporaryDirectory() as tmp:
        path = keep or os.path.join(tmp, 'syz_check.c')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(source)
        cmd = cc.split() + ['-std=c11', '-Wall', '-Wextra', '-Werror', '-fsyntax-only']
        cmd += ['-I' + i for i in includes] + [path]
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if r.returncode == 0:
            return None
        msgs = [ln for ln in r.stderr.split('\n') if 'error' in ln]
        return '\n'.join(msgs or [r.stderr.strip()])


def check(txt, const_text, header_text, args, generic, c_out=None):
    """All problems with this description and .const, as a list of lines."""
    ch = Checker(txt, args.description, const_text, args.const, header_text, args.header, generic)
    problems = ch.run()
    if problems:
        return problems
    with tempfile.TemporaryDirectory() as tmp:
        includes = [os.path.dirname(args.header) or '.'] + args.include
        if header_text != read_text(args.header):
            # a self-test's header: compile against it
            with open(os.path.join(tmp, os.path.basename(args.header)), 'w', encoding='utf-8') as f:
                f.write(header_text)
            includes.insert(0, tmp)
        err = compile_c(ch.c_source(os.path.basename(args.header)), args.cc, includes, c_out)
    return [err] if err else []


# Each known kind of mistake once: (what, file, text, replacement, the complaint expected).
MUTATIONS = [
    ('a field of the wrong size', 'txt',
     'index_count\tint32[0:8]', 'index_count\tint64[0:8]',
     'drm_ccore_ring_create is 56 bytes by syzlang rules'),
    ('two fields swapped', 'txt',
     '\tdst\t\tccore_dev_addr\n\tsrc0\t\tccore_dev_addr\n\tsrc1\t\tconst[0, int64]\n}\n\n'
     'drm_ccore_desc$reduce',
     '\tsrc0\t\tccore_dev_addr\n\tdst\t\tccore_dev_addr\n\tsrc1\t\tconst[0, int64]\n}\n\n'
     'drm_ccore_desc$reduce',
     'drm_ccore_desc$copy.src0 is at offset 24 by syzlang rules'),
    ('a field named differently', 'txt',
     'bad_index\tint32\t(out)\n}\n\ndrm_ccore_ring_stats',
     'bad_idx\tint32\t(out)\n}\n\ndrm_ccore_ring_stats', 'bad_idx'),
    ('a narrower pad (an implicit hole)', 'txt',
     '\tfirst\tccore_sem_ref\t(out)\n\tpad\tconst[0, int32]',
     '\tfirst\tccore_sem_ref\t(out)\n\tpad\tconst[0, int8]',
     'drm_ccore_sem_alloc.pad is 1 bytes by syzlang rules'),
    ('a wrong ioctl number', 'const',
     'DRM_IOCTL_CCORE_SUBMIT = ', 'DRM_IOCTL_CCORE_SUBMIT = 1',
     'DRM_IOCTL_CCORE_SUBMIT is 1'),
    ('a wrong enum value', 'const',
     'DRM_CCORE_OP_STARTI = 17', 'DRM_CCORE_OP_STARTI = 18', 'DRM_CCORE_OP_STARTI is 18'),
    ('an ioctl left out', 'txt',
     'ioctl$DRM_IOCTL_CCORE_CC_TRIGGER(', '#ioctl$DRM_IOCTL_CCORE_CC_TRIGGER(',
     'DRM_IOCTL_CCORE_CC_TRIGGER of uapi/drm/ccore_accel.h is not described'),
    ('an opcode left out of its flags', 'txt',
     'DRM_CCORE_OP_NOTIFY, DRM_CCORE_OP_STARTI\n', 'DRM_CCORE_OP_NOTIFY\n',
     'missing DRM_CCORE_OP_STARTI'),
    ('an out field not marked (out)', 'txt',
     'handle\t\tccore_ring_handle\t(out)', 'handle\t\tccore_ring_handle',
     'drm_ccore_ring_create.handle: the header documents it as out:'),
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
     '#define DRM_IOCTL_CCORE_NEW \\\n\tDRM_IOW(DRM_COMMAND_BASE + 0x16, struct drm_ccore_cc_trigger)\n'
     '#if defined(__cplusplus)\n}',
     'DRM_IOCTL_CCORE_NEW of uapi/drm/ccore_accel.h is not described'),
    ('a new opcode in the header', 'header',
     '\tDRM_CCORE_OP_STARTI = 0x11,\n', '\tDRM_CCORE_OP_STARTI = 0x11,\n\tDRM_CCORE_OP_NEW = 0x12,\n',
     'missing DRM_CCORE_OP_NEW'),
    ('a new flag in the header', 'header',
     '#define DRM_CCORE_JOB_F_TRIGGER\t\t(1u << 0)\n',
     '#define DRM_CCORE_JOB_F_TRIGGER\t\t(1u << 0)\n#define DRM_CCORE_JOB_F_NEW\t\t(1u << 1)\n',
     'flag DRM_CCORE_JOB_F_NEW of uapi/drm/ccore_accel.h is not described'),
]


def self_test(txt, const_text, header_text, args, generic):
    """Every mutation must be rejected with its complaint; returns what was not."""
    failures = []
    for what, which, old, new, expected in MUTATIONS:
        files = {'txt': txt, 'const': const_text, 'header': header_text}
        if files[which].count(old) != 1:
            failures.append('self-test: cannot apply "%s": %r occurs %d times'
                            % (what, old, files[which].count(old)))
            continue
        files[which] = files[which].replace(old, new)
        found = check(files['txt'], files['const'], files['header'], args, generic)
        hits = [line for p in found for line in p.split('\n') if expected in line]
        if not hits:
            failures.append('self-test: %s was not reported as "%s"; got: %s'
                            % (what, expected, found or 'no problem at all'))
        else:
            print('self-test: %s: rejected: %s' % (what, hits[0]))
    return failures


def match_syscall(name, pattern):
    """syz-manager's rule: exact, NAME$variant, or a prefix ending in '*'."""
    return (name == pattern or name.startswith(pattern + '$') or
            (len(pattern) > 1 and pattern.endswith('*') and name.startswith(pattern[:-1])))


def check_config(path, txt, args):
    import json
    try:
        cfg = json.loads(read_text(path))
    except ValueError as e:
        return ['%s: not valid JSON: %s' % (path, e)]
    d = parse_description(txt, args.description, Problems())
    calls = {c[0] for c in d.calls} | EXTERNAL_CALLS
    problems = []
    for pattern in cfg.get('enable_syscalls', []):
        if not any(match_syscall(c, pattern) for c in calls):
            problems.append('%s: enable_syscalls: %s matches no call of %s' %
                            (path, pattern, args.description))
    for key in ('target', 'type', 'vm', 'enable_syscalls'):
        if key not in cfg:
            problems.append('%s: has no "%s"' % (path, key))
    return problems


def write_const(txt, args):
    ch = Checker(txt, args.description, 'arches = amd64\n', args.const, read_text(args.header),
                 args.header, [])
    names = sorted(used_consts(ch.d, ch.lay))
    src = ['#define _GNU_SOURCE', '#include <stdio.h>', '#include <fcntl.h>', '#include <sys/syscall.h>',
           '#include "%s"' % os.path.basename(args.header), 'int main(void)', '{']
    for n in names:
        src.append('\tprintf("%s = %%llu\\n", (unsigned long long)(%s));' % (n, n))
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


def main():
    p = argparse.ArgumentParser(add_help=False, usage='syz-check.py [options] DESCRIPTION.txt')
    p.add_argument('description', nargs='?')
    p.add_argument('--const')
    p.add_argument('--header', default='uapi/drm/ccore_accel.h')
    p.add_argument('-I', dest='include', action='append')
    p.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    p.add_argument('--c-out')
    p.add_argument('--self-test', action='store_true')
    p.add_argument('--write-const', action='store_true')
    p.add_argument('--config')
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
    for path in (args.description, args.header) + (() if args.write_const else (args.const,)):
        if not os.path.isfile(path):
            print('syz-check.py: %s: no such file' % path, file=sys.stderr)
            return 2
    txt = read_text(args.description)
    if args.write_const:
        write_const(txt, args)
        return 0
    const_text = read_text(args.const)
    generic = []
    for inc in args.include:
        drm_h = os.path.join(inc, 'drm.h')
        if os.path.isfile(drm_h):
            generic.append(read_text(drm_h))
    header_text = read_text(args.header)
    problems = check(txt, const_text, header_text, args, generic, args.c_out)
    if not problems and args.self_test:
        problems = self_test(txt, const_text, header_text, args, generic)
    if not problems and args.config:
        problems = check_config(args.config, txt, args)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print('syz-check.py: %s does not match %s' % (args.description, args.header),
              file=sys.stderr)
        return 1
    print('syz-check.py: %s matches %s' % (args.description, args.header))
    return 0


if __name__ == '__main__':
    sys.exit(main())

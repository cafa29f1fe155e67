#!/usr/bin/env python3
"""Well-formedness checker for the HeadScope test treebanks (CoNLL-U).

Usage: python3 check.py FILE.conllu [FILE2.conllu ...]
Checks: 10 tab-separated columns; integer ids 1..n in order; multiword
ranges (a-b) cover following words; empty nodes (n.m) follow word n and
have '_' HEAD/DEPREL; exactly one root (HEAD 0, DEPREL root); heads exist;
no cycles; '# text' matches FORMs (tokens) + SpaceAfter=No; sent_id and
text comments present and sent_ids unique; Entity brackets in MISC
balanced inside each sentence; per document mention/entity counts.
"""
import re
import sys
from collections import Counter, OrderedDict

ENT_RE = re.compile(r"\((e\d+)(?:-([a-z]+)(?:-[^()]*)?)?|(e\d+)\)")


def parse_entity(value):
    """Yield ('open', id, type, closes_immediately) / ('close', id)."""
    out = []
    i = 0
    while i < len(value):
        if value[i] == '(':
            m = re.match(r"\((e\d+)-([a-z]+)-([^()]*?)(\))?(?=\(|e\d+\)|$)", value[i:])
            if not m:
                raise ValueError("bad Entity opening at %r" % value[i:])
            out.append(('open', m.group(1), m.group(2)))
            if m.group(4):
                out.append(('close', m.group(1)))
            i += m.end()
        else:
            m = re.match(r"(e\d+)\)", value[i:])
            if not m:
                raise ValueError("bad Entity closing at %r" % value[i:])
            out.append(('close', m.group(1)))
            i += m.end()
    return out


def check_sentence(lines, comments, sid, problems, docstats, doc):
    def err(msg):
        problems.append("%s: %s" % (sid, msg))

    words = OrderedDict()  # int id -> cols
    ranges = []
    empties = []
    expected = 1
    pending_range_end = 0
    for ln, line in lines:
        cols = line.split('\t')
        if len(cols) != 10:
            err("line %d has %d columns" % (ln, len(cols)))
            continue
        if any(c == '' for c in cols):
            err("line %d has an empty column" % ln)
        tid = cols[0]
        if re.fullmatch(r"\d+-\d+", tid):
            a, b = map(int, tid.split('-'))
            if a != expected or b <= a:
                err("bad range %s at line %d (expected start %d)" % (tid, ln, expected))
            if any(c != '_' for c in cols[2:9]):
                err("range line %s must have '_' in columns 3-9" % tid)
            ranges.append((a, b, cols))
            pending_range_end = b
        elif re.fullmatch(r"\d+\.\d+", tid):
            n = int(tid.split('.')[0])
            if n != expected - 1:
                err("empty node %s not after word %d" % (tid, n))
            if cols[6] != '_' or cols[7] != '_':
                err("empty node %s must have '_' HEAD and DEPREL" % tid)
            if cols[8] == '_':
                err("empty node %s needs enhanced DEPS" % tid)
            empties.append((tid, cols))
        elif re.fullmatch(r"\d+", tid):
            i = int(tid)
            if i != expected:
                err("id %d out of order (expected %d) line %d" % (i, expected, ln))
            expected = i + 1
            words[i] = cols
        else:
            err("bad id %r line %d" % (tid, ln))
    if not words:
        err("no words")
        return
    for a, b, _ in ranges:
        if b > max(words):
            err("range %d-%d beyond last word" % (a, b))
    # heads / root / cycles
    heads = {}
    roots = []
    for i, c in words.items():
        h, rel = c[6], c[7]
        if not re.fullmatch(r"\d+", h):
            err("word %d HEAD %r not integer" % (i, h))
            continue
        h = int(h)
        if h != 0 and h not in words:
            err("word %d HEAD %d does not exist" % (i, h))
        if h == i:
            err("word %d is its own head" % i)
        if (h == 0) != (rel == 'root'):
            err("word %d: HEAD 0 iff DEPREL root violated (%s %s)" % (i, h, rel))
        if h == 0:
            roots.append(i)
        heads[i] = h
        if c[3] not in UPOS:
            err("word %d bad UPOS %r" % (i, c[3]))
        if not re.fullmatch(r"[a-z]+(:[a-z]+)?", rel):
            err("word %d bad DEPREL %r" % (i, rel))
    if len(roots) != 1:
        err("%d roots %s" % (len(roots), roots))
    for i in heads:
        seen = set()
        j = i
        while j != 0 and j in heads:
            if j in seen:
                err("cycle through word %d" % i)
                break
            seen.add(j)
            j = heads[j]
    # enhanced DEPS of empty nodes refer to existing ids
    for tid, cols in empties:
        for part in cols[8].split('|'):
            m = re.fullmatch(r"(\d+(?:\.\d+)?):[a-z]+(:[a-z]+)?", part)
            if not m:
                err("empty node %s bad DEPS %r" % (tid, part))
            elif m.group(1) != '0' and '.' not in m.group(1) and int(m.group(1)) not in words:
                err("empty node %s DEPS head %s missing" % (tid, m.group(1)))
    # text reconstruction over surface tokens
    text = None
    for c in comments:
        if c.startswith('# text = '):
            text = c[len('# text = '):]
    if text is None:
        err("missing # text")
    else:
        covered = set()
        rebuilt = []
        range_start = {a: (a, b, cols) for a, b, cols in ranges}
        for i, c in words.items():
            if i in covered:
                continue
            if i in range_start:
                a, b, rc = range_start[i]
                covered.update(range(a, b + 1))
                form, misc = rc[1], rc[9]
            else:
                form, misc = c[1], c[9]
            rebuilt.append(form)
            if 'SpaceAfter=No' not in misc.split('|'):
                rebuilt.append(' ')
        rebuilt = ''.join(rebuilt).rstrip(' ')
        if rebuilt != text:
            err("text mismatch:\n   text:  %r\n   forms: %r" % (text, rebuilt))
    # coreference brackets
    stack = []
    for i, c in words.items():
        for part in c[9].split('|'):
            if part.startswith('Entity='):
                try:
                    events = parse_entity(part[len('Entity='):])
                except ValueError as e:
                    err("word %d: %s" % (i, e))
                    continue
                for ev in events:
                    if ev[0] == 'open':
                        stack.append(ev[1])
                        docstats[doc]['mentions'] += 1
                        docstats[doc]['entities'].add(ev[1])
                        docstats[doc]['types'].setdefault(ev[1], ev[2])
                        if docstats[doc]['types'][ev[1]] != ev[2]:
                            err("entity %s has two types" % ev[1])
                        docstats[doc]['count'][ev[1]] += 1
                        if c[3] == 'PRON' and len(events) and ('close', ev[1]) in events:
                            if docstats[doc]['count'][ev[1]] > 1:
                                docstats[doc]['pron_ante'] += 1
                            else:
                                docstats[doc]['pron_noante'] += 1
                    else:
                        if not stack:
                            err("word %d closes %s but nothing is open" % (i, ev[1]))
                        elif stack[-1] != ev[1]:
                            err("word %d closes %s but innermost open is %s" % (i, ev[1], stack[-1]))
                            if ev[1] in stack:
                                stack.remove(ev[1])
                        else:
                            stack.pop()
    if stack:
        err("unclosed mentions at sentence end: %s" % stack)


UPOS = set("ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split())


def check_file(path):
    problems = []
    docstats = OrderedDict()
    doc = '(no doc)'
    sent_ids = Counter()
    nsent = 0
    ntok = 0
    rels = Counter()
    with open(path, encoding='utf-8') as f:
        raw = f.read()
    if not raw.endswith('\n\n'):
        problems.append("file must end with a blank line")
    block, comments = [], []
    blocks = []
    for ln, line in enumerate(raw.split('\n'), 1):
        if line.strip() == '':
            if block or comments:
                blocks.append((comments, block))
            block, comments = [], []
        elif line.startswith('#'):
            if block:
                problems.append("line %d: comment inside sentence" % ln)
            comments.append(line)
        else:
            block.append((ln, line))
    if block or comments:
        blocks.append((comments, block))
    for comments, block in blocks:
        sid = None
        for c in comments:
            m = re.match(r"# newdoc id = (\S+)", c)
            if m:
                doc = m.group(1)
            if c.startswith('# sent_id = '):
                sid = c[len('# sent_id = '):]
        if doc not in docstats:
            docstats[doc] = {'mentions': 0, 'entities': set(), 'types': {}, 'sents': 0, 'count': Counter(), 'pron_ante': 0, 'pron_noante': 0}
        if sid is None:
            problems.append("sentence without sent_id (first comment %r)" % (comments[:1],))
            sid = '?'
        sent_ids[sid] += 1
        if not block:
            problems.append("%s: no token lines" % sid)
            continue
        nsent += 1
        docstats[doc]['sents'] += 1
        check_sentence(block, comments, sid, problems, docstats, doc)
        for ln, line in block:
            cols = line.split('\t')
            if len(cols) == 10 and re.fullmatch(r"\d+", cols[0]):
                ntok += 1
                rels[cols[7]] += 1
    for s, n in sent_ids.items():
        if n > 1:
            problems.append("duplicate sent_id %s" % s)
    print("== %s: %d sentences, %d words" % (path, nsent, ntok))
    if any(d['mentions'] for d in docstats.values()):
        for d, st in docstats.items():
            single = sorted(e for e, n in st['count'].items() if n == 1)
            print("   doc %s: %d sentences, %d mentions, %d entities, %d pronoun mentions with earlier antecedent"
                  % (d, st['sents'], st['mentions'], len(st['entities']), st['pron_ante'])
                  + (", singletons: %s" % single if single else ""))
            if st['pron_noante']:
                problems.append("doc %s: %d pronoun mentions without earlier antecedent" % (d, st['pron_noante']))
        print("   total pronoun mentions with earlier antecedent: %d"
              % sum(st['pron_ante'] for st in docstats.values()))
    if problems:
        for p in problems:
            print("   PROBLEM " + p)
    else:
        print("   OK: no problems found")
    return problems, rels


if __name__ == '__main__':
    total = 0
    for p in sys.argv[1:]:
        probs, _ = check_file(p)
        total += len(probs)
    sys.exit(1 if total else 0)

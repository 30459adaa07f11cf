#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md names an existing file (and, with #anchor, a heading
of that file, GitHub's slug rules). Usage: check-doc-links.py <repo root> (ctest docs_links). Exit 1 naming each broken link."""
import pathlib, re, sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else '.').resolve()
pages = [root / 'README.md'] + sorted((root / 'docs').glob('*.md'))

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r'[^\w\- ]', '', s)          # drop punctuation (keeps letters, digits, _, -, space)
    return s.replace(' ', '-')

def anchors(path):
    text = re.sub(r'```.*?```', '', path.read_text(), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r'^#+\s+(.*)$', text, re.M)}

bad = []
for page in pages:
    text = re.sub(r'```.*?```', '', page.read_text(), flags=re.S)   # links inside code blocks are not links
    for m in re.finditer(r'\[[^\]]*\]\(([^)\s]+)\)', text):
        target = m.group(1)
        if re.match(r'[a-z]+:', target):   # http:, https:, mailto:
            continue
        path, _, anchor = target.partition('#')
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f'{page.relative_to(root)}: {target}: no such file')
        elif anchor and dest.suffix == '.md' and anchor not in anchors(dest):
            bad.append(f'{page.relative_to(root)}: {target}: no heading #{anchor}')
for b in bad:
    print(b)
print(f'{len(pages)} pages checked, {len(bad)} broken links')
sys.exit(1 if bad else 0)

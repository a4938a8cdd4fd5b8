#!/bin/sh
# gen-man.sh: turn clasp's man page sources (docs/clasp.8.md, docs/cmd/*.md)
# into roff man pages (docs/man/*.8), with a small awk converter so that no
# document toolchain (pandoc) is needed to build or check them.
#
# Usage: scripts/gen-man.sh [OUTDIR]          (default docs/man)
#        scripts/gen-man.sh --check           exit 1 if docs/man is stale
#
# The sources use a small Markdown subset, and only that is understood:
#   # clasp-NAME(8)            title line: the page is clasp-NAME.8
#   ## SECTION, ### Sub        .SH / .SS
#   paragraphs, blank lines    .PP
#   `code` **bold** *italic*   \fB \fB \fI   ([text](url) keeps the text)
#   - item / 1. item           .IP (continuation lines indented)
#   `term`                     definition list: .TP term, then the text
#   : text                       (continuation lines indented two spaces)
#   4-space indent or ```      literal block (.nf)
#   | a | b | tables           tbl(1) (the page then starts with '\" t)
# The page date comes from SOURCE_DATE_EPOCH when set and is blank
# otherwise, so the generated files only change when their source does.
set -eu

cd "$(dirname "$0")/.."
version=$(sed -n 's/^VERSION[[:space:]]*:*=[[:space:]]*//p' Makefile | head -n 1)
date=""
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
fi

check=0
out=docs/man
if [ "${1:-}" = "--check" ]; then
	check=1
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
elif [ -n "${1:-}" ]; then
	out=$1
fi
mkdir -p "$out"

convert() {
	awk -v version="clasp ${version:-}" -v date="$date" '
	# Escape roff specials in plain text: backslash, and hyphens so that
	# options copy and search as ASCII "-".
	function esc(s) {
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		return s
	}
	# Inline markup: code spans first (their content is literal), then
	# bold, italic and links in the rest.
	function inl(s,    out, i, j, c, t) {
		out = ""
		while ((i = index(s, "`")) > 0) {
			t = substr(s, i + 1)
			j = index(t, "`")
			if (j == 0)
				break
			out = out emph(substr(s, 1, i - 1)) "\\fB" esc(substr(t, 1, j - 1)) "\\fR"
			s = substr(t, j + 1)
		}
		return out emph(s)
	}
	function emph(s,    t) {
		# Links keep their text; the target is of no use on a terminal
		# unless it is the text itself.
		while (match(s, /\[[^]]*\]\([^)]*\)/)) {
			t = substr(s, RSTART, RLENGTH)
			sub(/\]\(.*/, "", t)
			t = substr(t, 2)
			s = substr(s, 1, RSTART - 1) t substr(s, RSTART + RLENGTH)
		}
		s = esc(s)
		while (match(s, /\*\*[^*]+\*\*/))
			s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" substr(s, RSTART + RLENGTH)
		while (match(s, /(^|[^*A-Za-z0-9])\*[^* ][^*]*\*/)) {
			t = substr(s, RSTART, RLENGTH)
			pre = substr(t, 1, index(t, "*") - 1)
			t = substr(t, length(pre) + 2)
			t = substr(t, 1, length(t) - 1)
			s = substr(s, 1, RSTART - 1) pre "\\fI" t "\\fR" substr(s, RSTART + RLENGTH)
		}
		return s
	}
	# A line of text: protect a leading dot or quote from roff.
	function text(s) {
		s = inl(s)
		if (s ~ /^[.\047]/)
			s = "\\&" s
		return s
	}
	function lit(s) {
		s = esc(s)
		if (s ~ /^[.\047]/)
			s = "\\&" s
		return s
	}
	function cells(s,    n, a, i, r) {
		sub(/^[ \t]*\|/, "", s)
		sub(/\|[ \t]*$/, "", s)
		gsub(/\\\|/, "\001", s)
		n = split(s, a, "|")
		r = ""
		for (i = 1; i <= n; i++) {
			gsub(/^[ \t]+|[ \t]+$/, "", a[i])
			gsub("\001", "|", a[i])
			r = r (i > 1 ? "\t" : "") "T{\n" text(a[i]) "\nT}"
		}
		ncols = n
		return r
	}
	{ line[++n] = $0 }
	END {
		# A page with a table asks man(1) for tbl; it must be line one.
		for (i = 1; i <= n; i++)
			if (line[i] ~ /^\|/) {
				print "\047\\\" t"
				break
			}
		title = line[1]
		sub(/^# */, "", title)
		name = title
		sub(/\(.*/, "", name)
		sect = title
		gsub(/.*\(|\).*/, "", sect)
		printf ".TH \"%s\" \"%s\" \"%s\" \"%s\" \"System Manager\\(aqs Manual\"\n", toupper(name), sect, date, version
		print ".nh"
		print ".ad l"
		mode = ""
		for (i = 2; i <= n; i++) {
			l = line[i]
			if (mode == "fence") {
				if (l ~ /^```/) { print ".fi"; print ".RE"; mode = "" }
				else print lit(l)
				continue
			}
			if (l ~ /^```/) { print ".PP"; print ".RS 4"; print ".nf"; mode = "fence"; continue }
			if (l ~ /^[ \t]*$/) { pending = 1; continue }
			if (l ~ /^## /) { sub(/^## */, "", l); print ".SH \"" toupper(l) "\""; mode = ""; pending = 0; continue }
			if (l ~ /^### /) { sub(/^### */, "", l); print ".SS \"" inl(l) "\""; mode = ""; pending = 0; continue }
			if (l ~ /^\|/) {
				print ".PP"
				print ".TS"
				body = cells(l)
				hdr = body
				if (line[i + 1] ~ /^\|[ \t:|-]+$/)
					i++
				fmt = ""
				for (c = 1; c <= ncols; c++)
					fmt = fmt (c > 1 ? " " : "") "lx"
				print "allbox tab(\t);"
				print fmt "."
				print hdr
				while (i < n && line[i + 1] ~ /^\|/)
					print cells(line[++i])
				print ".TE"
				mode = ""; pending = 0
				continue
			}
			# Literal block: four spaces after a blank line, outside a list.
			if (l ~ /^    / && pending && mode != "item" && mode != "def") {
				print ".PP"; print ".RS 4"; print ".nf"
				while (1) {
					s = line[i]; sub(/^    /, "", s)
					print lit(s)
					if (i >= n || (line[i + 1] !~ /^    / && !(line[i + 1] ~ /^[ \t]*$/ && line[i + 2] ~ /^    /)))
						break
					i++
				}
				print ".fi"; print ".RE"
				mode = ""; pending = 0
				continue
			}
			# Definition list: a term line followed by ": text".
			if (line[i + 1] ~ /^: / && l !~ /^[-*] /) {
				print ".TP"
				print text(l)
				s = line[++i]; sub(/^: */, "", s)
				print text(s)
				mode = "def"; pending = 0
				continue
			}
			if (l ~ /^[-*] /) {
				sub(/^[-*] +/, "", l)
				print ".IP \\(bu 2"
				print text(l)
				mode = "item"; pending = 0
				continue
			}
			if (l ~ /^[0-9]+\. /) {
				num = l; sub(/\..*/, "", num)
				sub(/^[0-9]+\. +/, "", l)
				print ".IP " num ". 4"
				print text(l)
				mode = "item"; pending = 0
				continue
			}
			if (l ~ /^  +/ && (mode == "item" || mode == "def")) {
				sub(/^ +/, "", l)
				if (pending) print ".IP"
				print text(l)
				pending = 0
				continue
			}
			if (pending || mode != "para") { print ".PP"; mode = "para" }
			pending = 0
			sub(/^ +/, "", l)
			print text(l)
		}
	}' "$1"
}

status=0
for src in docs/clasp.8.md docs/cmd/*.md; do
	[ -f "$src" ] || continue
	title=$(head -n 1 "$src")
	case $title in
	"# "*"("[1-9]")") ;;
	*) echo "gen-man.sh: $src: the first line must be \"# NAME(SECTION)\"" >&2; exit 1 ;;
	esac
	page=$(printf '%s\n' "$title" | sed 's/^# *//; s/(\(.\))$/.\1/')
	convert "$src" >"$out/$page"
	if [ "$check" = 1 ] && ! cmp -s "$out/$page" "docs/man/$page"; then
		echo "gen-man.sh: docs/man/$page is stale: run scripts/gen-man.sh" >&2
		status=1
	fi
done
if [ "$check" = 1 ]; then
	for m in docs/man/*.8; do
		[ -f "$m" ] || continue
		[ -f "$out/$(basename "$m")" ] && continue
		echo "gen-man.sh: $m has no source page" >&2
		status=1
	done
fi
exit "$status"

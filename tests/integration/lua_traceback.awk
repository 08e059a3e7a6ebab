# Matches luatop's Lua stacks against debug.traceback (t_lua_host.sh; fixtures in
# t_lua_fixtures.sh).
#   awk -v g=f|l -f lua_traceback.awk TRACEBACKS LUA_FOLDED
# TRACEBACKS: "== POINT" lines, each followed by a debug.traceback() text.
# LUA_FOLDED: Lua stacks as folded lines, root first (lua_folded in lib.sh).
# g: f = function granularity, l = --lines.
# For each point prints "POINT LEAF OK NFRAMES": the samples whose Lua leaf is the
# point's first traceback frame, those of them whose Lua stack holds every
# traceback frame in order (other frames may come between), and the number of
# traceback frames; then, on lines starting with "#", the stacks that failed.
#
# Traceback lines map to luatop frames so (g=f):
#   CHUNK:LINE: in function 'N'        N (CHUNK:FIRSTLINE), N as luatop writes it may
#                                      be qualified (tab.N, obj:N); FIRSTLINE <= LINE
#   (also "in local 'N'", "in upvalue 'N'", "in field 'N'", "in method 'N'")
#   CHUNK:LINE: in function <CHUNK:F>  CHUNK:F, or N (CHUNK:F) with the name luatop
#                                      knows from the definition site
#   CHUNK:LINE: in main chunk          CHUNK:0
#   [C]: in function 'N'               N, or LIB.N (string.gsub for 'gsub')
#   [C]: at 0x..., [builtin#N]:, ...   not named in a traceback: not checked
# With g=l a Lua frame is NAME (CHUNK:LINE), LINE the current line (the leaf's
# within 1 of the traceback's: the burn loop); unnamed ones CHUNK:LINE or
# CHUNK:FIRSTLINE (CHUNK:LINE), the main chunk's CHUNK:LINE or CHUNK:0 (CHUNK:LINE).
# CHUNK is the basename of the traceback's file.
function base(s) { sub(/.*\//, "", s); return s }
function after(s, p) { return substr(s, index(s, p) + length(p)) }
# One traceback line into entry (P, i): kind[P, i] = lua | main | c, plus name,
# chunk, line, first. Lines luatop cannot name ([C]: at 0x..., [builtin#N]:, ...,
# (tail call)) are not entries.
function entry(P, s,   i, loc, rest, q) {
	sub(/^[ \t]+/, "", s)
	if (s ~ /^\[C\]: in [a-z]+ \047.*\047$/) {
		i = ++n[P]; kind[P, i] = "c"
		name[P, i] = after(s, "\047"); sub(/\047$/, "", name[P, i])
		return
	}
	if (s !~ /^[^[(].*: in /) return
	q = index(s, ": in "); loc = substr(s, 1, q - 1); rest = substr(s, q + 5)
	i = ++n[P]
	line[P, i] = ""
	if (loc ~ /:[0-9]+$/) { line[P, i] = loc; sub(/.*:/, "", line[P, i]); sub(/:[0-9]+$/, "", loc) }
	chunk[P, i] = base(loc)
	if (rest == "main chunk") { kind[P, i] = "main"; first[P, i] = 0; return }
	kind[P, i] = "lua"
	if (rest ~ /^function <.*:[0-9]+>$/) {
		first[P, i] = rest; sub(/.*:/, "", first[P, i]); sub(/>$/, "", first[P, i])
		name[P, i] = ""
	} else {
		name[P, i] = after(rest, "\047"); sub(/\047$/, "", name[P, i])
	}
}
# Split a luatop frame: fn = NAME or "", fc = CHUNK, fl = number; 0 when it is not a
# Lua frame.
function lua_parts(f,   p, loc) {
	fn = ""; fc = ""; fl = ""
	if (f ~ / \([^()]*:[0-9]+\)$/) {
		p = match(f, / \([^()]*:[0-9]+\)$/)
		fn = substr(f, 1, p - 1); loc = substr(f, p + 2); sub(/\)$/, "", loc)
	} else if (f ~ /^[^ ;]*:[0-9]+$/) loc = f
	else return 0
	fl = loc; sub(/.*:/, "", fl); fc = loc; sub(/:[0-9]+$/, "", fc)
	fl += 0
	return 1
}
# NAME as luatop writes it (tab.field, obj:method, string.gsub) for traceback name N.
function same_name(a, n,   t) {
	if (a == n) return 1
	if (length(a) <= length(n) + 1) return 0
	t = substr(a, length(a) - length(n))
	return t == "." n || t == ":" n
}
# Does luatop frame f match traceback entry (P, i)? leaf: allow the burn loop +- 1.
function match_frame(f, P, i, leaf,   k, want) {
	k = kind[P, i]
	if (k == "c") return f !~ / \(/ && same_name(f, name[P, i])
	if (!lua_parts(f) || fc != chunk[P, i]) return 0
	if (g == "l") {
		want = line[P, i] + 0
		if (leaf ? (fl < want - 1 || fl > want + 1) : fl != want) return 0
	} else if (k == "main") return fl == 0
	else if (name[P, i] == "") return fl == first[P, i]
	else if (line[P, i] != "" && fl > line[P, i]) return 0
	# Lines: an unnamed function may carry its function-granularity label as its
	# name (CHUNK:FIRSTLINE (CHUNK:LINE)). A function the traceback leaves unnamed
	# may have a name in luatop (the one it is defined under).
	if (k == "main") return fn == "" || fn == chunk[P, i] ":0"
	if (name[P, i] == "") return fn == "" || fn == chunk[P, i] ":" first[P, i] || fn !~ /:[0-9]+$/
	return same_name(fn, name[P, i])
}
FNR == 1 { file++ }
file == 1 && /^== / { P = $2; pts[++np] = P; next }
file == 1 && /^stack traceback:/ { next }
file == 1 { entry(P, $0); next }
{
	c = $NF; s = $0; sub(/ [0-9]+$/, "", s); m = split(s, f, ";")
	for (p = 1; p <= np; p++) {
		P = pts[p]
		if (!n[P] || !match_frame(f[m], P, 1, 1)) continue
		leafn[P] += c
		j = m - 1
		for (i = 2; i <= n[P]; i++) {
			while (j >= 1 && !match_frame(f[j], P, i, 0)) j--
			if (j < 1) break
			j--
		}
		if (i > n[P]) okn[P] += c
		else { miss[P] = miss[P] "\n#  " c " " s " (traceback frame " i " missing)"; nmiss[P]++ }
		break
	}
}
END {
	for (p = 1; p <= np; p++) {
		P = pts[p]
		print P, leafn[P] + 0, okn[P] + 0, n[P] + 0
	}
	for (p = 1; p <= np; p++) if (nmiss[pts[p]]) print "#", pts[p] ":" miss[pts[p]]
}

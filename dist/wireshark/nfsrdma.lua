-- nfsrdma.lua: nfsrdma's per-RPC fields in Wireshark and tshark 4.0 (Lua 5.2).
--
-- Adds an "nfsrdma" tree to the first frame of each RPC's call and of its
-- reply: the total, every phase, the chunk mix, the findings and, for a
-- joined records file (nfsrdma-dissect --join ... --json), the fused phases,
-- the segments and the verdict, with links between the call and the reply.
--
-- Where the numbers come from: the records nfsrdma-dissect wrote for this
-- capture (JSON Lines, `nfsrdma-dissect --json -r CAP > CAP.jsonl`; each
-- record names its frames, frame_call and frame_reply), not a computation
-- from Wireshark's own fields.  Why: the phases need the RDMA READs and
-- WRITEs tied to their RPC (chunk handle and offset, the Linux client's XID
-- in the offsets, PSN order, packets captured twice counted once), which
-- Wireshark 4.0's rpcordma dissector does not do, and a second decoder in
-- Lua would drift from the one every other tool (the line output, --fields,
-- -z, nfsrdma-top, nfsrdmad, /metrics) uses: one decoder, one set of
-- numbers.  The fused phases and the verdict cannot come from the capture
-- at all: they need the probes' records (the join).
--
-- The records file, first found of:
--   the preference   -o nfsrdma.records:FILE   (Edit > Preferences > Protocols > NFSRDMA)
--   the script's argument   -X lua_script1:FILE
--   the environment   NFSRDMA_RECORDS=FILE
--
-- A records file that is not this capture's adds nothing: every record's
-- frames are checked first against the whole capture (the frame exists;
-- its time is the record's; the XID Wireshark decodes there, rpc.xid or
-- rpcordma.xid, is the record's when it decodes one), and one mismatch,
-- like a file that does not parse, gives one warning on standard error
-- (Wireshark's log) and no field at all.  So the fields need the capture
-- read once before any frame is shown: the GUI does that when it loads a
-- file; tshark needs two passes with a protocol tree in the first:
--   tshark -2 -R frame -X lua_script:nfsrdma.lua -o nfsrdma.records:CAP.jsonl -r CAP ...
-- Read once (no -2), tshark gets no field and a warning that says so.
--
-- docs/wireshark.md lists every field.

local VERSION = "1.0"
set_plugin_info({ version = VERSION, author = "nfsrdma", repository = "dist/wireshark" })

local script_arg = ...
local proto = Proto("nfsrdma", "NFS/RDMA per-RPC timing (nfsrdma)")
proto.prefs.records = Pref.string("Records file", "",
	"JSON Lines from nfsrdma-dissect --json -r THIS_CAPTURE (or --join ... --json)")

-- Record phase names (docs/record.md) and their field names: a '+' cannot
-- be in a field name, so queue+server is queue_server.
local PHASES = { "call", "queue", "pull", "server", "queue+server", "push", "wait", "reply" }
local FPHASES = { "client_queue", "client_send", "net_out", "server_queue", "pull", "execute",
	"reply_build", "push", "net_back", "client_done" }
local SEGS = { "client_net", "server_net", "client_net_out", "client_net_back",
	"server_net_out", "server_net_back" }
local CHUNKS = { "read_chunks", "read_segs", "write_chunks", "write_segs", "reply_segs",
	"rdma_reads", "rdma_writes" }
local BYTES = { "call_inline", "reply_inline", "call_hdr", "reply_hdr", "read_chunk", "read",
	"write_chunk", "write", "reply_chunk", "reply", "write_list_echo" }

local function fname(s) return (s:gsub("%+", "_")) end

local F = {
	xid = ProtoField.uint32("nfsrdma.xid", "XID", base.HEX),
	role = ProtoField.string("nfsrdma.role", "Role (this frame is the first packet of the)"),
	op = ProtoField.string("nfsrdma.op", "Operation"),
	status = ProtoField.string("nfsrdma.status", "Status"),
	transport = ProtoField.string("nfsrdma.transport", "Transport"),
	source = ProtoField.string("nfsrdma.source", "Record source"),
	flags = ProtoField.uint32("nfsrdma.flags", "Flags", base.HEX),
	conn = ProtoField.uint32("nfsrdma.conn", "Connection"),
	call_frame = ProtoField.framenum("nfsrdma.call_frame", "Call in frame", base.NONE, frametype.REQUEST),
	reply_frame = ProtoField.framenum("nfsrdma.reply_frame", "Reply in frame", base.NONE, frametype.RESPONSE),
	total = ProtoField.relative_time("nfsrdma.total", "Total (call's first packet to reply's last)"),
	mix = ProtoField.string("nfsrdma.chunks.mix", "Chunk mix"),
	credits_asked = ProtoField.uint32("nfsrdma.credits_asked", "Credits asked"),
	credits_granted = ProtoField.uint32("nfsrdma.credits_granted", "Credits granted"),
	rdma_retrans = ProtoField.uint32("nfsrdma.rdma_retrans", "RDMA packets resent"),
	nfindings = ProtoField.uint32("nfsrdma.findings", "Findings"),
	finding = ProtoField.string("nfsrdma.finding", "Finding"),
	finding_id = ProtoField.string("nfsrdma.finding.id", "Finding id"),
	vantages = ProtoField.string("nfsrdma.vantages", "Vantages"),
	clock = ProtoField.string("nfsrdma.clock", "Clock of the fused times"),
	uncertainty = ProtoField.relative_time("nfsrdma.uncertainty", "Clock alignment uncertainty"),
	fuse_flags = ProtoField.uint32("nfsrdma.fuse_flags", "Fuse flags", base.HEX),
	ftotal = ProtoField.relative_time("nfsrdma.fused.total", "Fused total"),
	fspan = ProtoField.string("nfsrdma.fused.span", "Merged span"),
	verdict = ProtoField.string("nfsrdma.verdict", "Verdict (place holding most of the time)"),
	verdict_share = ProtoField.double("nfsrdma.verdict_share", "Verdict share"),
	place = ProtoField.string("nfsrdma.place", "Place"),
	phases = ProtoField.none("nfsrdma.phases", "Phases"),
	chunks = ProtoField.none("nfsrdma.chunks", "Chunks"),
	fused = ProtoField.none("nfsrdma.fused", "Fused phases"),
}
F.phase, F.fphase, F.seg, F.chunk, F.bytes = {}, {}, {}, {}, {}
for _, n in ipairs(PHASES) do
	F.phase[n] = ProtoField.relative_time("nfsrdma.phase." .. fname(n), "Phase " .. n)
end
for _, n in ipairs(FPHASES) do
	F.fphase[n] = ProtoField.relative_time("nfsrdma.fused." .. n, "Fused phase " .. n)
end
for _, n in ipairs(SEGS) do
	F.seg[n] = ProtoField.relative_time("nfsrdma.seg." .. n, "Segment " .. n)
end
for _, n in ipairs(CHUNKS) do F.chunk[n] = ProtoField.uint32("nfsrdma.chunks." .. n, n) end
for _, n in ipairs(BYTES) do F.bytes[n] = ProtoField.uint64("nfsrdma.bytes." .. n, n .. " bytes") end
do
	local list = {}
	for _, v in pairs(F) do
		if type(v) == "table" then
			for _, w in pairs(v) do list[#list + 1] = w end
		else
			list[#list + 1] = v
		end
	end
	proto.fields = list
end

local rpc_xid = Field.new("rpc.xid")
local rdma_xid = Field.new("rpcordma.xid")
local frame_number = Field.new("frame.number")

-- ---------------------------------------------------------------------
-- A bounded JSON reader: one value a line, at most MAX_LINE bytes and
-- MAX_DEPTH levels; an error names the byte offset in the line.
local MAX_LINE, MAX_DEPTH = 1048576, 16
local json = {}

local function jerr(s, i, what) error({ off = i, msg = what .. " at offset " .. (i - 1) }, 0) end

local function skip(s, i) return s:find("[^ \t\r\n]", i) or #s + 1 end

local function utf8(cp)
	if cp < 0x80 then return string.char(cp) end
	if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
	if cp < 0x10000 then
		return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
	end
	return string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64,
		0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
end

local ESC = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function jstring(s, i)
	local out, j = {}, i + 1
	while true do
		local k = s:find('["\\%c]', j)
		if not k then jerr(s, j, "unterminated string") end
		out[#out + 1] = s:sub(j, k - 1)
		local c = s:sub(k, k)
		if c == '"' then return table.concat(out), k + 1 end
		if c ~= "\\" then jerr(s, k, "control character in string") end
		local e = s:sub(k + 1, k + 1)
		if e == "u" then
			local h = s:match("^%x%x%x%x", k + 2)
			if not h then jerr(s, k, "bad \\u escape") end
			local cp = tonumber(h, 16)
			if cp >= 0xD800 and cp < 0xDC00 then
				local l = s:match("^\\u(%x%x%x%x)", k + 6)
				local lo = l and tonumber(l, 16)
				if lo and lo >= 0xDC00 and lo < 0xE000 then
					cp = 0x10000 + (cp - 0xD800) * 1024 + (lo - 0xDC00)
					k = k + 6
				end
			end
			-- a lone surrogate (the records' escape of a byte that is not
			-- UTF-8, docs/record.md "Names") shows as U+FFFD
			if cp >= 0xD800 and cp < 0xE000 then cp = 0xFFFD end
			out[#out + 1] = utf8(cp)
			j = k + 6
		elseif ESC[e] then
			out[#out + 1] = ESC[e]
			j = k + 2
		else
			jerr(s, k, "bad escape")
		end
	end
end

function json.value(s, i, depth)
	if depth > MAX_DEPTH then jerr(s, i, "nested deeper than " .. MAX_DEPTH) end
	i = skip(s, i)
	local c = s:sub(i, i)
	if c == "{" or c == "[" then
		local obj, close = {}, c == "{" and "}" or "]"
		i = skip(s, i + 1)
		if s:sub(i, i) == close then return obj, i + 1 end
		local n = 0
		while true do
			local key
			if c == "{" then
				if s:sub(i, i) ~= '"' then jerr(s, i, "expected a key") end
				key, i = jstring(s, i)
				i = skip(s, i)
				if s:sub(i, i) ~= ":" then jerr(s, i, "expected ':'") end
				i = i + 1
			end
			local v
			v, i = json.value(s, i, depth + 1)
			n = n + 1
			if key then obj[key] = v else obj[n] = v end
			i = skip(s, i)
			local d = s:sub(i, i)
			if d == close then return obj, i + 1 end
			if d ~= "," then jerr(s, i, "expected ',' or '" .. close .. "'") end
			i = skip(s, i + 1)
		end
	elseif c == '"' then
		return jstring(s, i)
	end
	local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
	if num and num ~= "" and num ~= "-" then return tonumber(num), i + #num end
	for lit, v in pairs({ ["true"] = true, ["false"] = false }) do
		if s:sub(i, i + #lit - 1) == lit then return v, i + #lit end
	end
	if s:sub(i, i + 3) == "null" then return json.null, i + 4 end
	jerr(s, i, "unexpected " .. (c == "" and "end of line" or "'" .. c .. "'"))
end
json.null = setmetatable({}, { __tostring = function() return "null" end })

local function json_line(s)
	local ok, v, i = pcall(json.value, s, 1, 0)
	if not ok then return nil, type(v) == "table" and v.msg or tostring(v) end
	if skip(s, i) <= #s then return nil, "text after the value at offset " .. (i - 1) end
	return v
end

-- ---------------------------------------------------------------------
-- The records file and its check against the capture.

local function num(v) return type(v) == "number" and v or nil end

-- An integer ns time from the line's text: past 2^53 a Lua number would
-- round it, and the check compares it with the frame's time to the ns.
local function ts_of(line, key)
	local d = line:match(',"' .. key .. '":(%d+)') or line:match('{"' .. key .. '":(%d+)')
	if not d or d == "0" then return nil end
	d = string.rep("0", 10 - #d) .. d
	return { secs = tonumber(d:sub(1, -10)), nsecs = tonumber(d:sub(-9)) }
end

-- The file's lines, read in blocks: a line over MAX_LINE comes back cut
-- to MAX_LINE + 1 bytes (the caller refuses it) rather than held whole.
local function bounded_lines(f)
	local buf, pos, eof = "", 1, false
	return function()
		while true do
			local nl = buf:find("\n", pos, true)
			if nl then
				local line = buf:sub(pos, nl - 1)
				pos = nl + 1
				return line
			end
			if #buf - pos + 1 > MAX_LINE then
				local line = buf:sub(pos, pos + MAX_LINE)
				buf, pos = "", 1
				return line
			end
			if eof then
				if pos > #buf then return nil end
				local line = buf:sub(pos)
				buf, pos = "", #buf + 1
				return line
			end
			local chunk = f:read(65536)
			if chunk then buf = buf:sub(pos) .. chunk; pos = 1 else eof = true end
		end
	end
end

-- state: the file loaded (recs, by_frame) and this pass's check.
local st = {}

local function load_records(path)
	local f, err = io.open(path, "rb")
	if not f then return nil, err end
	local by_frame, xids, n, lineno = {}, {}, 0, 0
	for line in bounded_lines(f) do
		lineno = lineno + 1
		if #line > MAX_LINE then
			f:close()
			return nil, string.format("%s:%d: line longer than %d bytes", path, lineno, MAX_LINE)
		end
		if line:find("%S") then
			local r, jerrmsg = json_line(line)
			if not r then
				f:close()
				return nil, string.format("%s:%d: %s", path, lineno, jerrmsg)
			end
			if type(r) ~= "table" then
				f:close()
				return nil, string.format("%s:%d: not a JSON object", path, lineno)
			end
			-- {"type":...} lines (join, check, clock reports) are no record
			if r.type == nil then
				local xid = type(r.xid) == "string" and tonumber(r.xid:match("^0x(%x+)$") or "", 16)
				local fc, fr = num(r.frame_call), num(r.frame_reply)
				if not xid or not fc or not fr then
					f:close()
					return nil, string.format("%s:%d: a record without xid, frame_call or frame_reply", path, lineno)
				end
				r._xid = xid
				xids[xid] = true
				n = n + 1
				for _, role in ipairs({ "call", "reply" }) do
					local fno = role == "call" and fc or fr
					if fno > 0 then
						by_frame[fno] = by_frame[fno] or {}
						table.insert(by_frame[fno], { rec = r, role = role,
							t = ts_of(line, role .. "_first"), tlast = ts_of(line, role .. "_last") })
					end
				end
			end
		end
	end
	f:close()
	if n == 0 then return nil, path .. ": no record in it" end
	return { by_frame = by_frame, xids = xids, n = n }
end

local function records_path()
	local p = proto.prefs.records
	if p and p ~= "" then return p end
	if script_arg and script_arg ~= "" then return script_arg end
	local e = os.getenv("NFSRDMA_RECORDS")
	if e and e ~= "" then return e end
	return nil
end

local function warn_once(msg)
	if st.warned then return end
	st.warned = true
	io.stderr:write("nfsrdma: warning: " .. msg .. "\n")
	io.stderr:flush()
end

-- Every capture (re)read starts a new check: Wireshark calls init before
-- the first frame of each pass over all frames.
function proto.init()
	local path = records_path()
	st = { path = path, max_frame = 0, checked = {}, verified = 0, decided = false, doubts = {}, xid_at = {} }
	if not path then return end
	local recs, err = load_records(path)
	if not recs then
		st.bad = "records file " .. err .. ": no nfsrdma fields"
		return
	end
	st.recs = recs
end

local function xids_here()
	local s = {}
	for _, fi in ipairs({ rpc_xid() }) do s[fi.value] = true end
	for _, fi in ipairs({ rdma_xid() }) do s[fi.value] = true end
	return s
end

local function same_time(t, want)
	local sec = math.floor(t)
	return sec == want.secs and math.abs((t - sec) * 1e9 - want.nsecs) <= 1000
end

local function hexlist(set)
	local l = {}
	for x in pairs(set) do l[#l + 1] = string.format("0x%08x", x) end
	table.sort(l)
	return table.concat(l, ",")
end

-- First pass: the frame exists, its time and XIDs are the records'.
-- Over TCP a frame can end one message and begin the next: Wireshark
-- shows the XID of the one it completes, so a TCP/UDP record's XID is
-- looked for, at the end of the pass, in the frame holding the message's
-- last byte (Wireshark decodes a message there), at the record's time of
-- that byte.
local function check_frame(pinfo)
	local fno = pinfo.number
	if fno > st.max_frame then st.max_frame = fno end
	local xids = xids_here()
	for x in pairs(xids) do
		if st.recs.xids[x] then
			st.xid_at[x] = st.xid_at[x] or {}
			table.insert(st.xid_at[x], { fno = fno, t = pinfo.abs_ts })
		end
	end
	local here = st.recs.by_frame[fno]
	if not here or st.checked[fno] then return end
	st.checked[fno] = true
	if not frame_number() then st.notree = true end
	local any = next(xids) ~= nil
	for _, e in ipairs(here) do
		local t = pinfo.abs_ts
		if e.t and not same_time(t, e.t) then
			st.mismatch = st.mismatch or string.format("frame %d: the record of XID 0x%08x says its %s's first packet is at %d.%09d, the frame is at %.6f",
				fno, e.rec._xid, e.role, e.t.secs, e.t.nsecs, t)
		elseif any and not xids[e.rec._xid] then
			if e.rec.transport == "rdma" or not e.tlast then
				st.mismatch = st.mismatch or string.format("frame %d: the record's %s XID 0x%08x, Wireshark's rpc.xid there %s",
					fno, e.role, e.rec._xid, hexlist(xids))
			else
				table.insert(st.doubts, { fno = fno, e = e, seen = hexlist(xids) })
			end
		elseif any then
			st.verified = st.verified + 1
		end
	end
end

-- A TCP/UDP message's XID where Wireshark decoded it: at or after its
-- first frame, at the time of its last byte.
local function resolve_doubts()
	for _, d in ipairs(st.doubts) do
		local found = false
		for _, at in ipairs(st.xid_at[d.e.rec._xid] or {}) do
			if at.fno >= d.fno and same_time(at.t, d.e.tlast) then found = true end
		end
		if not found then
			return string.format("frame %d: the record's %s XID 0x%08x, Wireshark's rpc.xid there %s, and not at the message's last byte either",
				d.fno, d.e.role, d.e.rec._xid, d.seen)
		end
		st.verified = st.verified + 1
	end
end

-- Once the whole capture went by: apply all the records or none.
local function decide()
	st.decided = true
	if st.bad then return end
	st.mismatch = st.mismatch or resolve_doubts()
	if st.mismatch then
		st.bad = st.path .. " is not this capture's records: " .. st.mismatch
		return
	end
	local past
	for fno in pairs(st.recs.by_frame) do
		if fno > st.max_frame and (not past or fno < past) then past = fno end
	end
	if past then
		st.bad = string.format("%s is not this capture's records: frame %d is past the capture's last frame %d",
			st.path, past, st.max_frame)
	elseif st.notree then
		st.bad = "the first pass had no protocol tree, so no XID could be checked: with tshark -2 add -R frame"
	elseif st.verified == 0 then
		st.bad = st.path .. ": no record's XID could be checked against Wireshark's rpc.xid or rpcordma.xid"
	end
end

-- ---------------------------------------------------------------------
-- The tree.

local function add_ns(tree, field, ns, label)
	if type(ns) ~= "number" then return nil end
	local t = NSTime(math.floor(ns / 1e9), ns % 1e9)
	if label then return tree:add(field, t):set_text(label) end
	return tree:add(field, t)
end

local function ms(ns)
	if type(ns) ~= "number" then return "-" end
	if ns < 1e3 then return string.format("%d ns", ns) end
	if ns < 1e6 then return string.format("%.3f us", ns / 1e3) end
	return string.format("%.3f ms", ns / 1e6)
end

local function span_first(name)
	return name:match("^([%w_]+)")
end

local function add_fused(tree, r)
	local ns = type(r.ns) == "table" and r.ns or {}
	local sub = tree:add(F.fused):set_text("Fused phases (" .. table.concat(type(r.vantages) == "table" and r.vantages or {}, ", ") .. ")")
	sub:add(F.vantages, table.concat(type(r.vantages) == "table" and r.vantages or {}, ","))
	if type(r.clock) == "string" then sub:add(F.clock, r.clock) end
	if num(r.uncertainty_ns) then add_ns(sub, F.uncertainty, r.uncertainty_ns) end
	if num(r.fuse_flags) then sub:add(F.fuse_flags, r.fuse_flags) end
	-- ns holds the fused phases in order; a merged span under its joined
	-- name ("server_queue+pull+execute") goes in its first phase's field.
	for _, n in ipairs(FPHASES) do
		for key, v in pairs(ns) do
			if key ~= "total" and span_first(key) == n then
				if key ~= n then
					add_ns(sub, F.fphase[n], v, string.format("Fused span %s: %s", key, ms(v)))
					sub:add(F.fspan, key)
				else
					add_ns(sub, F.fphase[n], v, string.format("Fused phase %s: %s", n, ms(v)))
				end
			end
		end
	end
	add_ns(sub, F.ftotal, ns.total, "Fused total: " .. ms(ns.total))
	local seg = type(r.seg) == "table" and r.seg or {}
	for _, n in ipairs(SEGS) do add_ns(sub, F.seg[n], seg[n], string.format("Segment %s: %s", n, ms(seg[n]))) end
	if type(r.places) == "table" then
		for _, pl in ipairs(r.places) do
			if type(pl.place) == "table" then
				sub:add(F.place, table.concat(pl.place, "|")):append_text(" " .. ms(pl.ns))
			end
		end
	end
	if type(r.verdict) == "table" and type(r.verdict.place) == "table" then
		local v = table.concat(r.verdict.place, "|")
		sub:add(F.verdict, v)
		if num(r.verdict.share) then sub:add(F.verdict_share, r.verdict.share) end
		tree:append_text(string.format(", verdict %s %d%%", v, math.floor((r.verdict.share or 0) * 100 + 0.5)))
	end
end

local function add_record(tree, e)
	local r = e.rec
	local joined = r.source == "joined"
	local wire = joined and r.wire_ns or r.ns
	wire = type(wire) == "table" and wire or {}
	local opname = (r.program or "?") .. " " .. (r.procedure or "?")
	local t = tree:add(proto, string.format("nfsrdma: %s xid 0x%08x, %s, total %s",
		opname, r._xid, e.role, ms(wire.total)))
	t:add(F.xid, r._xid)
	t:add(F.role, e.role)
	t:add(F.op, opname)
	if type(r.status) == "string" then t:add(F.status, r.status) end
	if type(r.transport) == "string" then t:add(F.transport, r.transport) end
	t:add(F.source, tostring(r.source))
	if num(r.conn) then t:add(F.conn, r.conn) end
	if num(r.flags) then t:add(F.flags, r.flags) end
	if r.frame_call > 0 then t:add(F.call_frame, r.frame_call) end
	if r.frame_reply > 0 then t:add(F.reply_frame, r.frame_reply) end
	add_ns(t, F.total, wire.total)
	local ph = t:add(F.phases):set_text("Phases (wire)")
	for _, n in ipairs(PHASES) do
		add_ns(ph, F.phase[n], wire[n], string.format("%s: %s", n, ms(wire[n])))
	end
	if joined then add_fused(t, r) end
	local ch = type(r.chunks) == "table" and r.chunks or {}
	local by = type(r.bytes) == "table" and r.bytes or {}
	local ct = t:add(F.chunks):set_text("Chunks: " .. tostring(ch.mix))
	if type(ch.mix) == "string" then ct:add(F.mix, ch.mix) end
	for _, n in ipairs(CHUNKS) do if num(ch[n]) then ct:add(F.chunk[n], ch[n]) end end
	for _, n in ipairs(BYTES) do if num(by[n]) then ct:add(F.bytes[n], UInt64(by[n])) end end
	if num(r.credits_asked) then t:add(F.credits_asked, r.credits_asked) end
	if num(r.credits_granted) then t:add(F.credits_granted, r.credits_granted) end
	if num(r.rdma_retrans) then t:add(F.rdma_retrans, r.rdma_retrans) end
	local fl = type(r.findings) == "table" and r.findings or {}
	local ft = t:add(F.nfindings, #fl)
	for _, fi in ipairs(fl) do
		ft:add(F.finding, tostring(fi.text))
		ft:add(F.finding_id, tostring(fi.id))
	end
	if #fl > 0 then t:append_text(string.format(", %d finding(s)", #fl)) end
end

function proto.dissector(tvb, pinfo, tree)
	if not st.path then return end
	if st.recs and not pinfo.visited then
		check_frame(pinfo)
		return
	end
	if not pinfo.visited then return end
	if not st.decided then decide() end
	if st.bad then
		warn_once(st.bad)
		return
	end
	local here = st.recs.by_frame[pinfo.number]
	if not here then return end
	for _, e in ipairs(here) do add_record(tree, e) end
end

register_postdissector(proto)

-- tshark reading the capture once never revisits a frame: say why no
-- field came rather than stay silent.  (The GUI draws taps while it
-- loads a file too, before the check is done: not there.)
local done = Listener.new(nil, nil)
function done.draw()
	if st.path and not st.decided and not st.warned then
		if st.bad then
			warn_once(st.bad)
		elseif not gui_enabled() then
			warn_once("no nfsrdma fields: the records are checked against the whole capture before any is added, " ..
				"and tshark read it once (run tshark -2 -R frame)")
		end
	end
end

# shellcheck shell=bash
for sys in sunrpc rpcrdma; do
	for d in /sys/kernel/tracing/events/$sys/*/; do
		e=$(basename "$d")
		mkdir -p "$LAB_OUT/allformats/$sys/$e"
		cp "$d/format" "$LAB_OUT/allformats/$sys/$e/format"
	done
done
ls /sys/kernel/btf > "$LAB_OUT/btf-list"
bpftool version > "$LAB_OUT/bpftool-version" 2>&1 || true

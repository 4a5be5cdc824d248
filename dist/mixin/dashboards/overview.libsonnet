// nfsrdma / Overview: what every nfsrdmad exports (no collector needed).
local p = import '../lib/panels.libsonnet';
local k = import 'common.libsonnet';

{
  grafanaDashboards+:: {
    local c = $._config,
    local rpc = k.rpc(c),
    local op = k.op(c),
    local base = k.base(c),
    local conn = k.conn(c),
    local r = '$__rate_interval',
    local bucket(by) = 'sum by (%s, le) (rate(nfsrdma_rpc_duration_seconds_bucket{%s}[%s]))' % [by, rpc, r],
    local node = c.nodeExporterSelector,

    'nfsrdma-overview.json': p.dashboard(c, 'overview', 'nfsrdma / Overview',
      'NFS over RDMA (and TCP) RPCs as nfsrdmad sees them: rates, latency percentiles, the phase split, unanswered calls, reconnects, credits and drops (docs/mixin.md).',
      k.vars(c), [
        {
          title: 'RPC rate',
          perLine: 3,
          panels: [
            p.timeseries('RPCs per operation', 'Completed RPCs a second (answered, or flushed unanswered), per protocol and operation.',
                         [p.target('sum by (protocol, operation) (rate(nfsrdma_rpc_requests_total{%s}[%s]))' % [rpc, r], '{{protocol}} {{operation}}')], 'reqps'),
            p.timeseries('RPCs per client', 'Completed RPCs a second per client address.',
                         [p.target('sum by (client) (rate(nfsrdma_rpc_requests_total{%s}[%s]))' % [rpc, r], '{{client}}')], 'reqps'),
            p.timeseries('RPCs per server', 'Completed RPCs a second per server address.',
                         [p.target('sum by (server) (rate(nfsrdma_rpc_requests_total{%s}[%s]))' % [rpc, r], '{{server}}')], 'reqps'),
            p.timeseries('Errors per operation', 'RPCs answered with an RPC or program error status, a second.',
                         [p.target('sum by (protocol, operation) (rate(nfsrdma_rpc_errors_total{%s}[%s]))' % [rpc, r], '{{protocol}} {{operation}}')], 'reqps'),
            p.timeseries('Bytes per operation', 'Bytes a second: inline (SEND payloads, call and reply) and moved by RDMA READ/WRITE (chunks).',
                         [
                           p.target('sum by (protocol, operation) (rate(nfsrdma_rpc_inline_bytes_total{%s}[%s]))' % [rpc, r], '{{protocol}} {{operation}} inline'),
                           p.target('sum by (protocol, operation) (rate(nfsrdma_rpc_rdma_bytes_total{%s}[%s]))' % [rpc, r], '{{protocol}} {{operation}} RDMA'),
                         ], 'Bps'),
            p.timeseries('Chunk mix', 'RPCs a second by chunk mix: inline, read, write, reply, p0 (position-zero Read).',
                         [p.target('sum by (protocol, operation, chunk) (rate(nfsrdma_rpc_chunks_total{%s}[%s]))' % [op, r], '{{protocol}} {{operation}} {{chunk}}')], 'reqps', stack=true),
          ],
        },
        {
          title: 'Latency',
          perLine: 2,
          panels: [
            p.timeseries('Latency percentiles per operation', 'p50, p90, p99 of RPC latency (first call packet to last reply packet), from the duration histogram.',
                         k.quantiles(bucket('protocol, operation'), '{{protocol}} {{operation}}'), 's'),
            p.timeseries('p99 per operation (recorded)', 'The recorded p99 the latency alert reads (instance_operation:nfsrdma_rpc_duration_seconds:histogram_quantile, over %s), all operations of the chosen nfsrdmad.' % c.rateInterval,
                         [p.target('instance_operation:nfsrdma_rpc_duration_seconds:histogram_quantile{quantile="0.99",%s}' % op, '{{protocol}} {{operation}} ({{instance}})')], 's'),
            p.timeseries('Latency percentiles per client', 'p50, p90, p99 of the chosen operations per client.',
                         k.quantiles(bucket('client'), '{{client}}'), 's'),
            p.timeseries('Latency percentiles per server', 'p50, p90, p99 of the chosen operations per server.',
                         k.quantiles(bucket('server'), '{{server}}'), 's'),
            p.timeseries('p99 per client and server (recorded)', 'The recorded p99 of every operation together per client and server pair (instance_client_server:nfsrdma_rpc_duration_seconds:histogram_quantile, over %s).' % c.rateInterval,
                         [p.target('instance_client_server:nfsrdma_rpc_duration_seconds:histogram_quantile{quantile="0.99",%s}' % conn, '{{client}} -> {{server}} {{transport}} ({{instance}})')], 's'),
            p.timeseries('Mean latency per operation', 'Mean RPC latency: the duration histogram\'s sum over its count.',
                         [p.target('sum by (protocol, operation) (rate(nfsrdma_rpc_duration_seconds_sum{%s}[%s])) / sum by (protocol, operation) (rate(nfsrdma_rpc_duration_seconds_count{%s}[%s]))' % [rpc, r, rpc, r], '{{protocol}} {{operation}}')], 's'),
            p.timeseries('Mean latency per client and server', 'Mean RPC latency per client and server pair.',
                         [p.target('sum by (client, server) (rate(nfsrdma_rpc_duration_seconds_sum{%s}[%s])) / sum by (client, server) (rate(nfsrdma_rpc_duration_seconds_count{%s}[%s]))' % [rpc, r, rpc, r], '{{client}} -> {{server}}')], 's'),
          ],
        },
        {
          title: 'Phase split (per operation: nfsrdmad exports the phases per operation, not per client or server; the collector\'s fused phases are per client and server, see the RPC phases dashboard)',
          perLine: 2,
          panels: [
            p.timeseries('Mean time per RPC in each phase', 'Seconds of each phase per answered RPC (call, queue, pull, server, queue+server, push, wait, reply: docs/record.md). Stacked, they make the mean latency.',
                         [p.target('sum by (protocol, operation, phase) (rate(nfsrdma_rpc_phase_seconds_total{%s}[%s])) / ignoring (phase) group_left sum by (protocol, operation) (rate(nfsrdma_rpc_duration_seconds_count{%s}[%s]))' % [op, r, op, r], '{{protocol}} {{operation}} {{phase}}')], 's', stack=true),
            p.timeseries('Share of each phase (recorded)', 'Each phase\'s share of the operation\'s time over %s (instance_operation_phase:nfsrdma_rpc_phase_seconds:share5m); the phase-shift alert compares it with the share over %s.' % [c.rateInterval, c.baselineInterval],
                         [p.target('instance_operation_phase:nfsrdma_rpc_phase_seconds:share5m{%s}' % op, '{{protocol}} {{operation}} {{phase}}')], 'percentunit', stack=true),
          ],
        },
        {
          title: 'Health: unanswered, retransmissions, reconnects, credits, drops',
          perLine: 3,
          panels: [
            p.timeseries('Unanswered calls', 'Calls whose reply was never seen, per operation, client and server, a second.',
                         [p.target('sum by (protocol, operation, client, server) (rate(nfsrdma_rpc_unanswered_total{%s}[%s]))' % [rpc, r], '{{protocol}} {{operation}} {{client}} -> {{server}}')], 'reqps'),
            p.timeseries('New connections (reconnects)', 'Connections between a client and a server that appeared within %s (each RDMA reconnect is a new QP pair; the reconnect alert reads it).' % c.reconnectWindow,
                         [p.target('instance_client_server:nfsrdma_connections:new10m{%s}' % conn, '{{client}} -> {{server}} {{transport}}')], 'short'),
            p.timeseries('Credits granted per connection', 'Credits the server last granted on each RPC-over-RDMA connection.',
                         [p.target('nfsrdma_connection_credits{%s,transport="rdma"}' % base, 'conn {{conn}} {{client}} -> {{server}}')], 'short'),
            p.timeseries('Credit overruns', 'Calls sent beyond the server\'s credit grant (finding credit-overrun, id %s), a second; 0 when none was ever seen.' % c.creditOverrunFinding,
                         [p.target('sum by (instance) (rate(nfsrdma_findings_total{%s,finding="%s"}[%s])) or sum by (instance) (0 * nfsrdma_records_total{%s})' % [base, c.creditOverrunFinding, r, base], '{{instance}}')], 'reqps'),
            p.timeseries('Connections and their RPCs', 'RPCs a second per connection.',
                         [p.target('sum by (conn, client, server, transport) (rate(nfsrdma_connection_requests_total{%s}[%s]))' % [conn, r], 'conn {{conn}} {{client}} -> {{server}} {{transport}}')], 'reqps'),
            p.timeseries('Records dropped (probes, queue)', 'Records nfsrdmad lost a second: queue = its queue full; source = lost before user space (probe or XDP ring full, capture drops) or evicted unanswered. Forwarder drops and collector losses too.',
                         [
                           p.target('sum by (instance, reason) (rate(nfsrdma_dropped_records_total{%s}[%s]))' % [base, r], '{{instance}} {{reason}}'),
                           p.target('sum by (instance, peer) (rate(nfsrdma_forward_records_total{%s,result="dropped"}[%s]))' % [base, r], '{{instance}} forward to {{peer}} dropped'),
                           p.target('sum by (instance, host, result) (rate(nfsrdma_collect_records_total{%s,result=~"lost|malformed"}[%s]))' % [base, r], '{{instance}} collect from {{host}} {{result}}'),
                         ], 'reqps'),
            p.timeseries('Source errors and overflow', 'Bad input the sources skipped, and records folded into an "other" row because a dimension was full (--max-keys).',
                         [
                           p.target('sum by (instance) (rate(nfsrdma_source_errors_total{%s}[%s]))' % [base, r], '{{instance}} source errors'),
                           p.target('sum by (instance, dimension) (rate(nfsrdma_overflow_records_total{%s}[%s]))' % [base, r], '{{instance}} overflow {{dimension}}'),
                         ], 'reqps'),
            p.timeseries('Records and memory', 'Records aggregated a second, and the memory the aggregation holds.',
                         [
                           p.target('sum by (instance) (rate(nfsrdma_records_total{%s}[%s]))' % [base, r], '{{instance}} records/s'),
                           p.target('sum by (instance) (nfsrdma_aggregation_memory_bytes{%s})' % base, '{{instance}} memory bytes'),
                         ], 'short'),
          ] + (if node == '' then [] else [
                 p.timeseries('Kernel client: retransmissions and connects (node_exporter)', 'nfsrdmad does not export retransmissions or the kernel\'s transport reconnects; node_exporter\'s mountstats collector (--collector.mountstats) does, per mount: transmissions beyond the requests are retransmissions; connect_total counts the transport\'s (re)connects.',
                              [
                                p.target('sum by (instance, export) (rate(node_mountstats_nfs_operations_transmissions_total{%s}[%s]) - rate(node_mountstats_nfs_operations_requests_total{%s}[%s]))' % [node, r, node, r], '{{instance}} {{export}} retransmissions'),
                                p.target('sum by (instance, export) (rate(node_mountstats_nfs_transport_connect_total{%s}[%s]))' % [node, r], '{{instance}} {{export}} connects'),
                              ], 'reqps'),
               ]),
        },
      ]),
  },
}

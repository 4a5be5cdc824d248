// nfsrdma / Verdict: where the collector runs (nfsrdmad --collect), the
// fused records' verdict, places, clock-free segments, and the join's
// health (docs/record.md, "Segments and the verdict").
local p = import '../lib/panels.libsonnet';
local k = import 'common.libsonnet';

{
  grafanaDashboards+:: {
    local c = $._config,
    local rpc = k.rpc(c),
    local op = k.op(c),
    local base = k.base(c),
    local r = '$__rate_interval',
    local perRpc(metric, by, label) =
      'sum by (%s, %s) (rate(%s{%s}[%s])) / ignoring (%s) group_left sum by (%s) (rate(nfsrdma_rpc_fused_duration_seconds_count{%s}[%s]))' % [by, label, metric, rpc, r, label, by, rpc, r],
    local seg(by) =
      'sum by (%s, segment) (rate(nfsrdma_rpc_segment_seconds_total{%s}[%s])) / sum by (%s, segment) (rate(nfsrdma_rpc_segment_rpcs_total{%s}[%s]))' % [by, rpc, r, by, rpc, r],

    'nfsrdma-verdict.json': p.dashboard(c, 'verdict', 'nfsrdma / Verdict (collector)',
      'The collector\'s fused RPCs (client probe, wire and server probe joined): which place holds their time, the clock-free network segments, and how well the join works.',
      k.vars(c, 'nfsrdma_rpc_fused_duration_seconds_count'), [
        {
          title: 'Verdict: the place holding most of each RPC\'s time (a|b: the data cannot tell them apart)',
          perLine: 2,
          panels: [
            p.timeseries('RPCs by verdict', 'Fused RPCs a second by their verdict.',
                         [p.target('sum by (place) (rate(nfsrdma_rpc_verdict_total{%s}[%s]))' % [rpc, r], '{{place}}')], 'reqps', stack=true),
            p.timeseries('Verdict per operation', 'Fused RPCs a second by operation and verdict.',
                         [p.target('sum by (protocol, operation, place) (rate(nfsrdma_rpc_verdict_total{%s}[%s]))' % [rpc, r], '{{protocol}} {{operation}} {{place}}')], 'reqps'),
            p.timeseries('Verdict per client', 'Fused RPCs a second by client and verdict.',
                         [p.target('sum by (client, place) (rate(nfsrdma_rpc_verdict_total{%s}[%s]))' % [rpc, r], '{{client}} {{place}}')], 'reqps'),
            p.timeseries('Verdict per server', 'Fused RPCs a second by server and verdict.',
                         [p.target('sum by (server, place) (rate(nfsrdma_rpc_verdict_total{%s}[%s]))' % [rpc, r], '{{server}} {{place}}')], 'reqps'),
          ],
        },
        {
          title: 'Places: the fused time divided among client_host, client_net, server_net, server_queue, execute, pull, push, reply_wait',
          perLine: 3,
          panels: [
            p.timeseries('Share of time by place per operation (recorded)', 'Each place\'s share of the operation\'s fused time over %s (instance_operation_place:nfsrdma_rpc_place_seconds:share5m).' % c.rateInterval,
                         [p.target('instance_operation_place:nfsrdma_rpc_place_seconds:share5m{%s}' % op, '{{protocol}} {{operation}} {{place}}')], 'percentunit', stack=true),
            p.timeseries('Time per RPC by place, per client', 'Seconds of each place per fused RPC, per client.',
                         [p.target(perRpc('nfsrdma_rpc_place_seconds_total', 'client', 'place'), '{{client}} {{place}}')], 's', stack=true),
            p.timeseries('Time per RPC by place, per server', 'Seconds of each place per fused RPC, per server.',
                         [p.target(perRpc('nfsrdma_rpc_place_seconds_total', 'server', 'place'), '{{server}} {{place}}')], 's', stack=true),
          ],
        },
        {
          title: 'Clock-free network segments (client_net, server_net: the round trip on each side of the capture point)',
          perLine: 3,
          panels: [
            p.timeseries('Mean segment per operation', 'Mean network round trip on each side of the capture point, per operation.',
                         [p.target(seg('protocol, operation'), '{{protocol}} {{operation}} {{segment}}')], 's'),
            p.timeseries('Mean segment per client', 'Mean network round trip on each side of the capture point, per client.',
                         [p.target(seg('client'), '{{client}} {{segment}}')], 's'),
            p.timeseries('Mean segment per server', 'Mean network round trip on each side of the capture point, per server.',
                         [p.target(seg('server'), '{{server}} {{segment}}')], 's'),
          ],
        },
        {
          title: 'Fused latency',
          perLine: 2,
          panels: [
            p.timeseries('Fused duration percentiles per operation', 'p50, p90, p99 of the fused RPCs\' duration (the client\'s task, or the widest span the joined vantages saw).',
                         k.quantiles('sum by (protocol, operation, le) (rate(nfsrdma_rpc_fused_duration_seconds_bucket{%s}[%s]))' % [rpc, r], '{{protocol}} {{operation}}'), 's'),
            p.timeseries('Fused p99 per operation (recorded)', 'instance_operation:nfsrdma_rpc_fused_duration_seconds:histogram_quantile over %s.' % c.rateInterval,
                         [p.target('instance_operation:nfsrdma_rpc_fused_duration_seconds:histogram_quantile{quantile="0.99",%s}' % op, '{{protocol}} {{operation}}')], 's'),
          ],
        },
        {
          title: 'The join: records in, fused RPCs out, clocks, the forward link',
          perLine: 3,
          panels: [
            p.timeseries('Fused RPCs by result', 'complete = every vantage; partial = one or more missing; evicted = partial ones the window pushed out; dup; negative.',
                         [p.target('sum by (instance, result) (rate(nfsrdma_join_rpcs_total{%s}[%s]))' % [base, r], '{{instance}} {{result}}')], 'reqps'),
            p.timeseries('Negative phases by reason', 'Fused RPCs with a negative phase: client, wire, server = that vantage\'s own times out of order; clock = two hosts\' clocks apart beyond the alignment\'s uncertainty.',
                         [p.target('sum by (instance, reason) (rate(nfsrdma_join_negative_total{%s}[%s]))' % [base, r], '{{instance}} {{reason}}')], 'reqps'),
            p.timeseries('Records into the join', 'local = this daemon\'s sources, remote = forwarded; rejected; hosts_overflow.',
                         [p.target('sum by (instance, result) (rate(nfsrdma_join_records_total{%s}[%s]))' % [base, r], '{{instance}} {{result}}')], 'reqps'),
            p.timeseries('Clock offsets', 'Offset of clock b against clock a (b - a) per host and vantage pair.',
                         [p.target('nfsrdma_join_clock_offset_seconds{%s}' % base, '{{host_a}}/{{vantage_a}} -> {{host_b}}/{{vantage_b}}')], 's'),
            p.timeseries('Clock uncertainty', 'Half-width of each offset\'s interval; the clock alert fires above %g s.' % c.clockUncertaintySeconds,
                         [p.target('nfsrdma_join_clock_uncertainty_seconds{%s}' % base, '{{host_a}}/{{vantage_a}} -> {{host_b}}/{{vantage_b}}')], 's'),
            p.timeseries('Forward link', 'Records a second: received, lost, earlier, malformed, peer_dropped per forwarder (collector side), sent and dropped (forwarder side), refused handshakes.',
                         [
                           p.target('sum by (instance, host, result) (rate(nfsrdma_collect_records_total{%s}[%s]))' % [base, r], '{{instance}} from {{host}} {{result}}'),
                           p.target('sum by (instance, peer, result) (rate(nfsrdma_forward_records_total{%s}[%s]))' % [base, r], '{{instance}} to {{peer}} {{result}}'),
                           p.target('sum by (instance) (rate(nfsrdma_collect_refused_total{%s,peer="all"}[%s]))' % [base, r], '{{instance}} refused'),
                         ], 'reqps'),
            p.timeseries('Fused observations not kept', 'Verdicts, place-sets and phase spans a series could not keep (its bounds).',
                         [
                           p.target('sum by (instance, what) (rate(nfsrdma_rpc_fused_overflow_total{%s}[%s]))' % [base, r], '{{instance}} {{what}}'),
                           p.target('sum by (instance) (rate(nfsrdma_rpc_fused_spans_overflow_total{%s}[%s]))' % [base, r], '{{instance}} spans'),
                         ], 'reqps'),
          ],
        },
      ]),
  },
}

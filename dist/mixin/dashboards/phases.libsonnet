// nfsrdma / RPC phases: one phase at a time, per operation; the
// collector's fused end-to-end phases per operation, client and server.
local p = import '../lib/panels.libsonnet';
local k = import 'common.libsonnet';

{
  grafanaDashboards+:: {
    local c = $._config,
    local rpc = k.rpc(c),
    local op = k.op(c),
    local r = '$__rate_interval',
    local ph = 'phase=~"$phase"',
    local fph = 'phase=~"$fphase"',
    local fbucket(by) = 'sum by (%s, le) (rate(nfsrdma_rpc_fused_phase_seconds_bucket{%s,%s}[%s]))' % [by, rpc, fph, r],

    'nfsrdma-phases.json': p.dashboard(c, 'phases', 'nfsrdma / RPC phases',
      'Where an RPC\'s time goes, phase by phase (docs/record.md): the wire\'s phases per operation from every nfsrdmad, and the fused client-wire-server phases per operation, client and server from a collector (nfsrdmad --collect).',
      k.vars(c) + [
        p.labelVar('phase', 'Wire phase', 'nfsrdma_rpc_phase_seconds_total', k.base(c)),
        p.labelVar('fphase', 'Fused phase', 'nfsrdma_rpc_fused_phase_seconds_count', k.base(c), 'phase'),
      ], [
        {
          title: 'Wire phases per operation (call, queue, pull, server, queue+server, push, wait, reply)',
          perLine: 2,
          panels: [
            p.timeseries('Mean time per RPC in the phase', 'Seconds of the chosen phases per answered RPC of each operation.',
                         [p.target('sum by (protocol, operation, phase) (rate(nfsrdma_rpc_phase_seconds_total{%s,%s}[%s])) / ignoring (phase) group_left sum by (protocol, operation) (rate(nfsrdma_rpc_duration_seconds_count{%s}[%s]))' % [op, ph, r, op, r], '{{protocol}} {{operation}} {{phase}}')], 's'),
            p.timeseries('Share of the operation\'s time', 'The chosen phases\' share of all the time of the operation\'s answered RPCs.',
                         [p.target('sum by (protocol, operation, phase) (rate(nfsrdma_rpc_phase_seconds_total{%s,%s}[%s])) / ignoring (phase) group_left sum by (protocol, operation) (rate(nfsrdma_rpc_phase_seconds_total{%s}[%s]))' % [op, ph, r, op, r], '{{protocol}} {{operation}} {{phase}}')], 'percentunit'),
            p.timeseries('Share now and baseline (recorded)', 'The phase share over %s, and over the %s that ended %s ago: the phase-shift alert fires when they differ by more than %g.' % [c.rateInterval, c.baselineInterval, c.baselineOffset, c.phaseShiftThreshold],
                         [
                           p.target('instance_operation_phase:nfsrdma_rpc_phase_seconds:share5m{%s,%s}' % [op, ph], '{{protocol}} {{operation}} {{phase}} %s' % c.rateInterval),
                           p.target('instance_operation_phase:nfsrdma_rpc_phase_seconds:share1h{%s,%s} offset %s' % [op, ph, c.baselineOffset], '{{protocol}} {{operation}} {{phase}} baseline'),
                         ], 'percentunit'),
            p.timeseries('Time in the phase (seconds per second)', 'Seconds spent in the chosen phases a second, summed over RPCs: how many RPCs sit in that phase at once, on average.',
                         [p.target('sum by (protocol, operation, phase) (rate(nfsrdma_rpc_phase_seconds_total{%s,%s}[%s]))' % [op, ph, r], '{{protocol}} {{operation}} {{phase}}')], 'short'),
          ],
        },
        {
          title: 'Fused phases (collector): client_queue, client_send, net_out, server_queue, pull, execute, reply_build, push, net_back, client_done',
          perLine: 2,
          panels: [
            p.timeseries('Fused phase percentiles per operation', 'p50, p90, p99 of each chosen fused phase per operation (nfsrdma_rpc_fused_phase_seconds; a span a missing vantage left unsplit is named a+b).',
                         k.quantiles(fbucket('protocol, operation, phase'), '{{protocol}} {{operation}} {{phase}}'), 's'),
            p.timeseries('Mean fused phase per RPC', 'Mean seconds of each fused phase per fused RPC of each operation; stacked, the mean fused duration.',
                         [p.target('sum by (protocol, operation, phase) (rate(nfsrdma_rpc_fused_phase_seconds_sum{%s,%s}[%s])) / ignoring (phase) group_left sum by (protocol, operation) (rate(nfsrdma_rpc_fused_duration_seconds_count{%s}[%s]))' % [rpc, fph, r, rpc, r], '{{protocol}} {{operation}} {{phase}}')], 's', stack=true),
            p.timeseries('Fused phase p99 per client', 'p99 of each chosen fused phase per client.',
                         [p.target('histogram_quantile(0.99, %s)' % fbucket('client, phase'), '{{client}} {{phase}}')], 's'),
            p.timeseries('Fused phase p99 per server', 'p99 of each chosen fused phase per server.',
                         [p.target('histogram_quantile(0.99, %s)' % fbucket('server, phase'), '{{server}} {{phase}}')], 's'),
          ],
        },
      ]),
  },
}

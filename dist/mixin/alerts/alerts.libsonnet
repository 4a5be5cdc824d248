// Alerts.  Each has summary, description, a short runbook and the URL of
// its full runbook (docs/mixin.md, "Alerts"; the anchor is the alert's
// name in lower case).
local sel(c, extra='') = '{' + c.nfsrdmaSelector + (if extra == '' then '' else ',' + extra) + '}';
local by(c, more) = std.join(', ', c.instanceLabels + more);
local onop(c) = 'on (%s)' % by(c, ['protocol', 'operation', 'transport']);

// "NFSv3 COMMIT" -> {protocol="NFSv3",operation="COMMIT"}
local opMatch(name) =
  local i = std.findSubstr(' ', name)[0];
  'protocol="%s",operation="%s"' % [std.substr(name, 0, i), std.substr(name, i + 1, std.length(name) - i - 1)];

// %g of 0 overflows in jsonnet 0.18's std.format
local num(x) = if x == 0 then '0' else '%g' % x;

local p99 = 'instance_operation:nfsrdma_rpc_duration_seconds:histogram_quantile';

local alert(c, name, severity, expr, forTime, summary, description, runbook) = {
  alert: name,
  expr: expr,
  [if forTime != '' then 'for']: forTime,
  labels: { severity: severity },
  annotations: {
    summary: summary,
    description: description,
    runbook: runbook,
    runbook_url: c.runbookURLPattern % std.asciiLower(name),
  },
};

{
  prometheusAlerts+:: {
    local c = $._config,
    local named = std.objectFields(c.p99ThresholdByOperation),
    local others = if named == [] then '' else
      ' unless %s (%s)' % [onop(c), std.join(' or ', ['%s{quantile="0.99",%s}' % [p99, opMatch(n)] for n in named])],
    groups+: [
      {
        name: 'nfsrdma',
        rules: [
          alert(c, 'NfsrdmaRpcLatencyHigh', 'warning',
                '(\n  (%s{quantile="0.99"} > %g%s)\n%s) and %s (instance_operation:nfsrdma_rpc_requests:rate5m >= %g)\n' % [
                  p99,
                  c.p99ThresholdSeconds,
                  others,
                  std.join('', ['  or (%s{quantile="0.99",%s} > %g)\n' % [p99, opMatch(n), c.p99ThresholdByOperation[n]] for n in named]),
                  onop(c),
                  c.minRpcRate,
                ],
                c.latencyFor,
                '{{ $labels.protocol }} {{ $labels.operation }} p99 latency is {{ $value | humanizeDuration }} on {{ $labels.instance }}.',
                'The 99th percentile of {{ $labels.protocol }} {{ $labels.operation }} RPCs over {{ $labels.transport }} seen by {{ $labels.instance }} has been {{ $value | humanizeDuration }} for %s, above its threshold.' % c.latencyFor,
                'Open the nfsrdma / RPC phases dashboard for this operation: the phase whose share grew holds the time (server: the server host; pull/push: RDMA READ/WRITE of chunks; call/reply/wait: the network or the client). Per client and server: the overview\'s p99 panels; with a collector, the verdict dashboard names the place.'),
          alert(c, 'NfsrdmaPhaseShareShift', 'warning',
                |||
                  abs(
                    instance_operation_phase:nfsrdma_rpc_phase_seconds:share5m
                      -
                    instance_operation_phase:nfsrdma_rpc_phase_seconds:share1h offset %s
                  ) > %g
                  and %s (instance_operation:nfsrdma_rpc_requests:rate5m >= %g)
                ||| % [c.baselineOffset, c.phaseShiftThreshold, onop(c), c.minRpcRate],
                c.phaseShiftFor,
                'The {{ $labels.phase }} phase of {{ $labels.protocol }} {{ $labels.operation }} moved by {{ $value | humanizePercentage }} of its time on {{ $labels.instance }}.',
                'Over the last %s the {{ $labels.phase }} phase holds a share of {{ $labels.protocol }} {{ $labels.operation }}\'s time that differs by {{ $value | humanizePercentage }} (absolute) from its share over the %s that ended %s ago: where the time of this operation goes has changed.' % [c.rateInterval, c.baselineInterval, c.baselineOffset],
                'Compare the phase split now and its baseline on the RPC phases dashboard (Share now and baseline). More server or queue+server: the server (nfsd threads, storage). More pull or push: RDMA transfers (link, congestion, retransmissions). More call, reply or wait: the network or the client side. Check the latency alert for the same operation.'),
          alert(c, 'NfsrdmaUnansweredCalls', 'warning',
                'sum by (%s) (increase(nfsrdma_rpc_unanswered_total%s[%s])) > %s\n' % [
                  by(c, ['protocol', 'operation', 'client', 'server', 'transport']),
                  sel(c),
                  c.unansweredWindow,
                  num(c.unansweredThreshold),
                ],
                c.unansweredFor,
                '{{ $value | humanize }} {{ $labels.protocol }} {{ $labels.operation }} calls from {{ $labels.client }} to {{ $labels.server }} went unanswered.',
                '{{ $labels.instance }} saw {{ $value | humanize }} {{ $labels.protocol }} {{ $labels.operation }} calls from {{ $labels.client }} to {{ $labels.server }} over {{ $labels.transport }} in the last %s that were never answered.' % c.unansweredWindow,
                'An unanswered call is a call whose reply was never seen: the server did not answer (restart, hang, a dropped connection), or the reply went on a connection nfsrdmad does not see. Check the server (nfsd running, rpc.nfsd threads, the journal), reconnects to it (NfsrdmaReconnectStorm) and nfsrdmad drops (a dropped reply shows as an unanswered call).'),
          alert(c, 'NfsrdmaReconnectStorm', 'warning',
                'instance_client_server:nfsrdma_connections:new10m > %g\n' % c.reconnectThreshold,
                '',
                '{{ $labels.client }} made {{ $value }} new {{ $labels.transport }} connections to {{ $labels.server }} within %s.' % c.reconnectWindow,
                '{{ $labels.instance }} saw {{ $value }} connections between {{ $labels.client }} and {{ $labels.server }} over {{ $labels.transport }} appear within %s (each RDMA reconnect is a new QP pair).' % c.reconnectWindow,
                'The client keeps losing its transport: the server restarts or drops the connection (svcrdma errors in its kernel log), the fabric flaps (port state, RoCE link, PFC), or the client times out (major timeouts in its mountstats). Look at the unanswered calls and the retransmissions panel of the overview for the same pair.'),
          alert(c, 'NfsrdmaCreditStarvation', 'warning',
                |||
                  nfsrdma_connection_credits%s < %g
                  and on (%s) (rate(nfsrdma_connection_requests_total%s[%s]) > 0)
                ||| % [sel(c, 'transport="rdma"'), c.creditsLow, by(c, ['conn', 'client', 'client_qp', 'server', 'server_qp', 'transport']), sel(c), c.rateInterval],
                c.creditFor,
                'The server grants {{ $value }} credits on a busy RPC-over-RDMA connection from {{ $labels.client }}.',
                '{{ $labels.server }} last granted {{ $value }} credits (fewer than %g) on connection {{ $labels.conn }} from {{ $labels.client }} (QP {{ $labels.client_qp }}), which carried RPCs in the last %s: the client can have no more calls than that in flight.' % [c.creditsLow, c.rateInterval],
                'Credits bound the calls in flight on the connection. A server lowers its grant when it runs short of receive buffers or RDMA resources (svcrdma, max_requests, the RDMA device\'s limits). Check the server\'s load and kernel log; the queue phase grows when calls wait for credits.'),
          alert(c, 'NfsrdmaCreditOverrun', 'warning',
                'sum by (%s) (increase(nfsrdma_findings_total%s[%s])) > 0\n' % [by(c, []), sel(c, 'finding="%s"' % c.creditOverrunFinding), c.dropWindow],
                '',
                'A client exceeded the credits its server granted ({{ $value | humanize }} calls), seen by {{ $labels.instance }}.',
                '{{ $labels.instance }} saw {{ $value | humanize }} calls in %s that a caller sent with more calls outstanding than the server\'s last credit grant (finding credit-overrun, RFC 8166 section 3.3.1).' % c.dropWindow,
                'A requester must not have more calls outstanding than the responder granted; the server may drop them or the connection. Run nfsrdma-dissect --check on a capture of the pair (nfsrdmad --export-dir) to name the connection and XIDs; it is a client bug to report.'),
          alert(c, 'NfsrdmaRecordsDropped', 'warning',
                'sum by (%s) (increase(nfsrdma_dropped_records_total%s[%s])) > %s\n' % [by(c, ['reason']), sel(c), c.dropWindow, num(c.dropThreshold)],
                '',
                'nfsrdmad on {{ $labels.instance }} lost {{ $value | humanize }} records ({{ $labels.reason }}).',
                'nfsrdmad on {{ $labels.instance }} lost {{ $value | humanize }} records in %s: reason queue = its queue between sources and aggregation was full; reason source = lost before user space (a probe\'s or XDP ring full, packets the capture dropped) or evicted unanswered. Its numbers undercount by that much.' % c.dropWindow,
                'queue: the aggregation cannot keep up (CPU, --max-keys): raise --queue, give the daemon a CPU. source: the probes\' or XDP ring overflowed: raise rb= of the xdp: source, sample (sample=N), or cut the snap length; a live: capture dropping packets needs a larger buffer. Rates and percentiles are low while this fires.'),
          alert(c, 'NfsrdmaForwarderDropping', 'warning',
                'sum by (%s) (increase(nfsrdma_forward_records_total%s[%s])) > %s\n' % [by(c, ['peer']), sel(c, 'result="dropped"'), c.dropWindow, num(c.dropThreshold)],
                '',
                'nfsrdmad on {{ $labels.instance }} dropped {{ $value | humanize }} records it should have forwarded to {{ $labels.peer }}.',
                'The forwarder on {{ $labels.instance }} found its queue to the collector {{ $labels.peer }} full and dropped {{ $value | humanize }} records in %s: the collector is slow, away, or the link is down.' % c.dropWindow,
                'Check that the collector runs and accepts this host (nfsrdma_collect_refused_total, its log), the network between them, and --forward-queue. The collector\'s fused records miss this host\'s vantage while it fires.'),
          alert(c, 'NfsrdmaCollectorLosingRecords', 'warning',
                |||
                  sum by (%s) (increase(nfsrdma_collect_records_total%s[%s])) > %s
                  or
                  sum by (%s) (increase(nfsrdma_join_records_total%s[%s])) > %s
                ||| % [
                  by(c, ['peer', 'host', 'result']),
                  sel(c, 'result=~"lost|malformed"'),
                  c.dropWindow,
                  num(c.dropThreshold),
                  by(c, ['result']),
                  sel(c, 'result="hosts_overflow"'),
                  c.dropWindow,
                  num(c.dropThreshold),
                ],
                '',
                'The collector {{ $labels.instance }} lost {{ $value | humanize }} records ({{ $labels.result }}).',
                'The collector on {{ $labels.instance }} counted {{ $value | humanize }} records {{ $labels.result }} in %s (lost: sequence gaps from forwarder {{ $labels.host }}; malformed: messages that did not decode; hosts_overflow: past the join\'s host limit, not joined).' % c.dropWindow,
                'lost: the forwarder\'s messages never arrived (collector restart, --forward-queue full on the receiving side). malformed: a forwarder of another version, or corruption: compare the versions. hosts_overflow: more hosts than the join keeps. The fused phases and the verdict miss those RPCs.'),
          alert(c, 'NfsrdmaClockAlignmentUncertain', 'warning',
                'nfsrdma_join_clock_uncertainty_seconds%s > %g\n' % [sel(c), c.clockUncertaintySeconds],
                c.clockFor,
                'The collector cannot align {{ $labels.host_b }}\'s clock with {{ $labels.host_a }}\'s better than {{ $value | humanizeDuration }}.',
                'The join on {{ $labels.instance }} holds the offset between {{ $labels.host_a }} ({{ $labels.vantage_a }}) and {{ $labels.host_b }} ({{ $labels.vantage_b }}) only within +/- {{ $value | humanizeDuration }}: fused phases shorter than that between those hosts cannot be told apart.',
                'The hosts\' clocks are not disciplined (chrony or PTP unsynchronised: check chronyc tracking, pmc, node_timex_sync_status) or drift; or too few RPCs cross the pair to bound the offset. docs/clocks.md explains the estimate. Until it is fixed, read the verdict\'s a|b places as undecided.'),
          alert(c, 'NfsrdmaClockNegativePhases', 'warning',
                'sum by (%s) (increase(nfsrdma_join_negative_total%s[%s])) > 0\n' % [by(c, []), sel(c, 'reason="clock"'), c.dropWindow],
                '',
                '{{ $value | humanize }} fused RPCs had a phase negative beyond the clocks\' uncertainty on {{ $labels.instance }}.',
                'The join on {{ $labels.instance }} fused {{ $value | humanize }} RPCs in %s whose phases came out negative although each vantage\'s own times were in order: two hosts\' clocks are further apart than the alignment believed (a clock step, an unsynchronised host).' % c.dropWindow,
                'A host\'s clock stepped or is unsynchronised: check chrony/ptp4l on every host that forwards (nfsrdma_join_clock_offset_seconds shows which pair moved). The fused phases of those RPCs are flagged and should not be trusted.'),
        ] + (if c.nodeExporterSelector == '' then [] else [
               alert(c, 'NfsrdmaHostClockNotSynchronised', 'warning',
                     |||
                       min_over_time(node_timex_sync_status{%s}[5m]) == 0
                       and
                       node_timex_maxerror_seconds{%s} >= 16
                     ||| % [c.nodeExporterSelector, c.nodeExporterSelector],
                     '10m',
                     'The clock of {{ $labels.instance }} is not synchronised.',
                     'node_exporter reports the kernel clock of {{ $labels.instance }} unsynchronised (adjtimex: not in sync, its maximum error at 16 s) for 10m. nfsrdmad reads the same adjtimex state for its clock lines but does not export it on /metrics: this alert uses node_exporter\'s timex collector.',
                     'Fix the host\'s time discipline (chronyc tracking, systemctl status chrony, ptp4l/phc2sys). The collector\'s join leans on disciplined clocks to align the probes\' times: unsynchronised hosts make the fused phases uncertain (NfsrdmaClockAlignmentUncertain).'),
             ]),
      },
    ],
  },
}

// Settings of the nfsrdma mixin: selectors, thresholds, windows.  Override
// any of them from your own jsonnet:
//   (import 'nfsrdma-mixin/mixin.libsonnet') + { _config+:: { p99ThresholdSeconds: 0.02 } }
// Every threshold is named after the alert that reads it (docs/mixin.md).
{
  _config+:: {
    // The nfsrdmad targets (its /metrics, default port 9464).  Every
    // query of the dashboards, rules and alerts carries this selector.
    nfsrdmaSelector: 'job="nfsrdmad"',
    // node_exporter on the same hosts, for what nfsrdmad does not export
    // today: the host's clock discipline (node_timex_*) and the kernel NFS
    // client's retransmissions and transport connects (mountstats
    // collector, node_mountstats_nfs_*).  Empty string: those panels and
    // alerts are left out.
    nodeExporterSelector: 'job="node"',

    // Labels that name one nfsrdmad (a host); Prometheus adds them.
    instanceLabels: ['job', 'instance'],

    // Window of the recorded rates (the rules' names say 5m).
    rateInterval: '5m',
    // A phase's share now (over rateInterval) is compared with its share
    // over baselineInterval that ended baselineOffset ago: an hour ago the
    // hour before.  (A baseline that takes in the last minutes would
    // follow the shift and end the alert before its 'for' is up.)
    baselineInterval: '1h',
    baselineOffset: '1h',

    // NfsrdmaRpcLatencyHigh: p99 above this many seconds, per operation;
    // an operation named here ("PROTOCOL OPERATION", as the tools name
    // it) gets its own threshold instead.
    p99ThresholdSeconds: 0.1,
    p99ThresholdByOperation: {
      'NFSv3 COMMIT': 1,
      'NFSv4.1 COMMIT': 1,
      'NFSv4.2 COMMIT': 1,
    },
    // quantiles recorded per operation (the dashboards read 0.5, 0.9, 0.99)
    quantiles: [0.5, 0.9, 0.99],
    // ...and only for an operation doing at least this many RPCs a second
    // (a quantile of a handful of RPCs is noise).
    minRpcRate: 0.1,
    latencyFor: '10m',

    // NfsrdmaPhaseShareShift: a phase's share of an operation's time
    // moved by more than this (0.3 = 30 points) from its baseline.
    phaseShiftThreshold: 0.3,
    phaseShiftFor: '15m',

    // NfsrdmaUnansweredCalls: more unanswered RPCs than this in
    // unansweredWindow, per operation, client and server.
    unansweredThreshold: 0,
    unansweredWindow: '10m',
    unansweredFor: '1m',

    // NfsrdmaReconnectStorm: more new connections than this between one
    // client and one server within reconnectWindow.  Connections of the
    // transports reconnectTransports matches (MOUNT and rpcbind make a
    // TCP connection each time: they are not reconnects).
    reconnectThreshold: 3,
    reconnectWindow: '10m',
    reconnectTransports: 'rdma',

    // NfsrdmaCreditStarvation: a busy RPC-over-RDMA connection whose
    // server grants fewer credits than this (Linux grants 64 or more), or
    // any credit overrun (finding 5, docs/checks.md).
    creditsLow: 8,
    creditOverrunFinding: '5',
    creditFor: '10m',

    // NfsrdmaRecordsDropped and friends: records lost in a window.
    dropWindow: '10m',
    dropThreshold: 0,

    // NfsrdmaClockAlignmentUncertain: the collector's clock alignment
    // between two hosts worse than this (seconds, half-width).  The lab's
    // soft-RoCE guests, aligned from their RPCs alone (no clock hints),
    // come out at 0.7-1.0 ms (tests/real-series.json).
    clockUncertaintySeconds: 0.002,
    clockFor: '15m',

    // Grafana
    dashboardTags: ['nfsrdma'],
    dashboardTimezone: 'utc',
    dashboardRefresh: '30s',
    dashboardUIDPrefix: 'nfsrdma-',

    // Where an alert's runbook lives: its anchor in docs/mixin.md.  Point
    // it at your copy of the docs (or /usr/share/doc/nfsrdma/mixin.md).
    runbookURLPattern: 'docs/mixin.md#%s',
  },
}

(import 'overview.libsonnet') + (import 'phases.libsonnet') + (import 'verdict.libsonnet')

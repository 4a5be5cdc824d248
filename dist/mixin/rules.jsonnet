std.manifestYamlDoc((import 'mixin.libsonnet').prometheusRules, indent_array_in_object=true, quote_keys=false)

# shellcheck shell=bash
lab_signal server.ready

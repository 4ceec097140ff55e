/*
 * sampler/events.c internals that the unit tests reach.  Not part of the
 * sampler's interface: nothing outside sampler/ and tests/ includes this.
 */
#ifndef DSPROF_EVENTS_INT_H
#define DSPROF_EVENTS_INT_H

#include "sampler/sampler.h"

/* Where the kernel lists its perf_event PMUs. */
#define DS_EV_DEVROOT "/sys/bus/event_source/devices"

/* ds_event_resolve() without the final check that the event opens here, so
 * that encodings of hardware events can be tested on a machine without a
 * PMU. */
int ds_ev_parse(const char *spec, ds_evspec *out, ds_err *err);

/* Encode a perf-style "PMU/term[=value],.../" string (no modifiers) against
 * the event_source devices under devroot: DS_EV_DEVROOT, or a fake tree in
 * tests.  Sets attr type and config*; -1 with err when it cannot. */
int ds_ev_pmu_encode(const char *devroot, const char *str, struct perf_event_attr *attr,
		     ds_err *err);

/* ds_mem_plan_make against the event_source devices under devroot. */
int ds_mem_plan_at(const char *devroot, bool loads, bool stores, unsigned ldlat, ds_mem_plan *out,
		   ds_err *err);

#endif

/**
 * The fault campaign's orchestrator: starts a three-member etcd with a partitionable peer network, a proxy per
 * worker and member, the run's tables in PostgreSQL and the worker processes; injects faults on a schedule; then
 * hands the histories and the tables to the independent {@link dev.fencelock.verification.checker checker} and
 * draws the run's timeline.
 */
@NullMarked
package dev.fencelock.verification;

import org.jspecify.annotations.NullMarked;

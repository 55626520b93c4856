/**
 * FenceLock's sample inventory service: stock reservations locked on etcd and fenced in the
 * database, runnable from its jar with an in-memory H2 database and a local etcd by default.
 */
@org.jspecify.annotations.NullMarked
package dev.fencelock.sample;

/** Tests of the sample inventory service against real etcd and PostgreSQL. */
@org.jspecify.annotations.NullMarked
package dev.fencelock.sample;

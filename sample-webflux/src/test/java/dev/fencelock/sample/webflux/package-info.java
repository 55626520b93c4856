/** Tests of the reactive sample stock service against real etcd and PostgreSQL. */
@org.jspecify.annotations.NullMarked
package dev.fencelock.sample.webflux;

package dev.fencelock.test.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PrometheusSamplesTest {

    private static final String EXPOSITION = String.join(
            "\n",
            "# HELP grpc_server_msg_received_total Total number of RPC stream messages received on the server.",
            "# TYPE grpc_server_msg_received_total counter",
            "grpc_server_msg_received_total{grpc_method=\"LeaseKeepAlive\",grpc_service=\"etcdserverpb.Lease\","
                    + "grpc_type=\"bidi_stream\"} 7",
            "grpc_server_msg_received_total{grpc_method=\"Range\",grpc_service=\"etcdserverpb.KV\","
                    + "grpc_type=\"unary\"} 3",
            "grpc_server_msg_received_total_extra{grpc_method=\"LeaseKeepAlive\"} 100",
            "etcd_server_has_leader 1",
            "odd_labels{path=\"a,b=\\\"c\\\"}\"} 2.5 1700000000000",
            "histogram_bucket{le=\"+Inf\"} +Inf",
            "");

    @Test
    void sumsEverySampleOfTheMetricWithoutAFilter() {
        assertThat(PrometheusSamples.sum(EXPOSITION, "grpc_server_msg_received_total", null))
                .isEqualTo(10.0);
        assertThat(PrometheusSamples.sum(EXPOSITION, "etcd_server_has_leader", ""))
                .isEqualTo(1.0);
    }

    @Test
    void keepsOnlySamplesCarryingAllFilterLabelsInAnyOrder() {
        assertThat(PrometheusSamples.sum(
                        EXPOSITION, "grpc_server_msg_received_total", "grpc_method=\"LeaseKeepAlive\""))
                .isEqualTo(7.0);
        assertThat(PrometheusSamples.sum(
                        EXPOSITION,
                        "grpc_server_msg_received_total",
                        "grpc_type=\"unary\", grpc_service=\"etcdserverpb.KV\""))
                .isEqualTo(3.0);
        assertThat(PrometheusSamples.sum(EXPOSITION, "grpc_server_msg_received_total", "grpc_method=\"Watch\""))
                .isZero();
    }

    @Test
    void readsQuotedLabelValuesTimestampsAndInfinity() {
        assertThat(PrometheusSamples.sum(EXPOSITION, "odd_labels", "path=\"a,b=\\\"c\\\"}\""))
                .isEqualTo(2.5);
        assertThat(PrometheusSamples.sum(EXPOSITION, "histogram_bucket", "le=\"+Inf\""))
                .isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void rejectsAFilterThatIsNotALabelList() {
        assertThatThrownBy(() -> PrometheusSamples.sum(EXPOSITION, "etcd_server_has_leader", "LeaseKeepAlive"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

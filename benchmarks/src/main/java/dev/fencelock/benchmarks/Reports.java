package dev.fencelock.benchmarks;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/** Number formatting shared by the report and the chart. */
final class Reports {

    private Reports() {}

    static double millis(Histogram histogram, double percentile) {
        if (histogram.getTotalCount() == 0) {
            return Double.NaN;
        }
        return histogram.getValueAtPercentile(percentile) / 1e6;
    }

    static String ms(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        return String.format(Locale.ROOT, value < 10 ? "%.2f" : (value < 100 ? "%.1f" : "%.0f"), value);
    }

    static String num(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        return String.format(Locale.ROOT, value < 10 ? "%.2f" : (value < 100 ? "%.1f" : "%,.0f"), value);
    }

    static String ratio(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "–" : String.format(Locale.ROOT, "%.2f×", value);
    }
}

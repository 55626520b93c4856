package dev.fencelock.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Draws latency percentiles per system with plain Java2D: one panel per scenario case, percentile
 * on the x axis, milliseconds on a logarithmic y axis.
 */
public final class LatencyChart {

    static final double[] PERCENTILES = {50, 90, 99, 99.9};

    private static final Map<String, Color> COLORS = Map.of(
            Systems.FENCELOCK, new Color(0x1f77b4),
            Systems.FENCELOCK_ASYNC, new Color(0x17becf),
            Systems.RAW_ETCD, new Color(0x7f7f7f),
            Systems.JETCD_LOCK, new Color(0xd62728),
            Systems.REDISSON, new Color(0x2ca02c));

    private static final int PANEL_WIDTH = 560;
    private static final int HEIGHT = 460;

    private LatencyChart() {}

    /**
     * One panel of the chart.
     *
     * @param title panel title
     * @param cases the systems' results for that case
     */
    public record Panel(String title, List<CaseResult> cases) {}

    /** The panels drawn for a report: scenarios 2 and 6 above 1 thread, and scenarios 3 and 7 at each size. */
    public static List<Panel> panels(BenchmarkReport report) {
        List<Panel> panels = new ArrayList<>();
        Map<Integer, List<CaseResult>> uncontended = byConcurrency(report.uncontended());
        uncontended.forEach((n, cases) -> {
            if (n > 1) {
                panels.add(new Panel("Scenario 2: uncontended acquire+release cycle, " + n + " threads", cases));
            }
        });
        byConcurrency(report.hotKey())
                .forEach((n, cases) ->
                        panels.add(new Panel("Scenario 3: hot-key hand-off, " + n + " contenders", cases)));
        byConcurrency(report.relock()).forEach((n, cases) -> {
            if (n > 1) {
                panels.add(new Panel("Scenario 6: re-locking one's own resource, " + n + " threads", cases));
            }
        });
        byConcurrency(report.zipf())
                .forEach((n, cases) -> panels.add(new Panel("Scenario 7: Zipf-skewed keys, " + n + " threads", cases)));
        return panels;
    }

    private static Map<Integer, List<CaseResult>> byConcurrency(List<CaseResult> cases) {
        Map<Integer, List<CaseResult>> grouped = new LinkedHashMap<>();
        cases.forEach(c ->
                grouped.computeIfAbsent(c.concurrency(), k -> new ArrayList<>()).add(c));
        return grouped;
    }

    public static void render(List<Panel> panels, String title, Path png) throws IOException {
        int columns = Math.min(2, Math.max(1, panels.size()));
        int rows = Math.max(1, (panels.size() + columns - 1) / columns);
        int width = PANEL_WIDTH * columns;
        int height = 40 + HEIGHT * rows;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            g.drawString(title, 20, 26);
            for (int i = 0; i < panels.size(); i++) {
                drawPanel(g, panels.get(i), (i % columns) * PANEL_WIDTH, 40 + (i / columns) * HEIGHT);
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        ImageIO.write(image, "png", png.toFile());
    }

    private static void drawPanel(Graphics2D g, Panel panel, int x0, int y0) {
        int left = x0 + 70;
        int right = x0 + PANEL_WIDTH - 20;
        int top = y0 + 30;
        int bottom = y0 + HEIGHT - 110;
        double min = Double.MAX_VALUE;
        double max = 0;
        for (CaseResult c : panel.cases()) {
            for (double p : PERCENTILES) {
                double v = c.millis(p);
                if (!Double.isNaN(v) && v > 0) {
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
        }
        if (max == 0) {
            min = 0.1;
            max = 1;
        }
        double logMin = Math.floor(Math.log10(min));
        double logMax = Math.ceil(Math.log10(max));
        if (logMax <= logMin) {
            logMax = logMin + 1;
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.setColor(Color.BLACK);
        g.drawString(panel.title(), left, y0 + 14);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        FontMetrics metrics = g.getFontMetrics();
        // Grid and y labels, one line per decade.
        for (double decade = logMin; decade <= logMax; decade++) {
            int y = yFor(decade, logMin, logMax, top, bottom);
            g.setColor(new Color(0xdddddd));
            g.drawLine(left, y, right, y);
            g.setColor(Color.DARK_GRAY);
            String label = formatMillis(Math.pow(10, decade));
            g.drawString(label, left - 8 - metrics.stringWidth(label), y + 4);
        }
        g.setColor(Color.DARK_GRAY);
        g.drawLine(left, top, left, bottom);
        g.drawLine(left, bottom, right, bottom);
        for (int i = 0; i < PERCENTILES.length; i++) {
            int x = xFor(i, left, right);
            String label = "p" + formatPercentile(PERCENTILES[i]);
            g.drawString(label, x - metrics.stringWidth(label) / 2, bottom + 16);
        }
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.drawString("latency (ms, log scale)", -(top + bottom) / 2 - 50, x0 + 16);
        rotated.dispose();
        // One line per system, legend below the axis.
        int legendY = bottom + 36;
        int legendX = left;
        for (CaseResult c : panel.cases()) {
            Color color = COLORS.getOrDefault(c.system(), Color.MAGENTA);
            g.setColor(color);
            g.setStroke(new BasicStroke(2.2f));
            int previousX = -1;
            int previousY = -1;
            for (int i = 0; i < PERCENTILES.length; i++) {
                double v = c.millis(PERCENTILES[i]);
                if (Double.isNaN(v) || v <= 0) {
                    continue;
                }
                int x = xFor(i, left, right);
                int y = yFor(Math.log10(v), logMin, logMax, top, bottom);
                g.fillOval(x - 4, y - 4, 8, 8);
                if (previousX >= 0) {
                    g.drawLine(previousX, previousY, x, y);
                }
                previousX = x;
                previousY = y;
            }
            g.setStroke(new BasicStroke(1f));
            String label = String.format(Locale.ROOT, "%s (%s/s)", c.system(), Reports.num(c.perSecond()));
            int labelWidth = metrics.stringWidth(label) + 30;
            if (legendX + labelWidth > right) {
                legendX = left;
                legendY += 18;
            }
            g.fillRect(legendX, legendY - 8, 14, 8);
            g.setColor(Color.BLACK);
            g.drawString(label, legendX + 18, legendY);
            legendX += labelWidth;
        }
    }

    private static int xFor(int index, int left, int right) {
        int inset = 30;
        return left + inset + (int) Math.round(index * (right - left - 2.0 * inset) / (PERCENTILES.length - 1));
    }

    private static int yFor(double log, double logMin, double logMax, int top, int bottom) {
        return bottom - (int) Math.round((log - logMin) / (logMax - logMin) * (bottom - top));
    }

    private static String formatMillis(double value) {
        return java.math.BigDecimal.valueOf(value)
                .round(new java.math.MathContext(3))
                .stripTrailingZeros()
                .toPlainString();
    }

    private static String formatPercentile(double p) {
        return p == Math.floor(p) ? Integer.toString((int) p) : Double.toString(p);
    }
}

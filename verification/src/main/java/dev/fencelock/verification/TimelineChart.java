package dev.fencelock.verification;

import dev.fencelock.verification.checker.FaultWindow;
import dev.fencelock.verification.checker.History;
import dev.fencelock.verification.checker.Operation;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jspecify.annotations.Nullable;

/**
 * Draws a run's rate plot with plain Java2D, like Jepsen's: completed operations per second, acknowledged above
 * the axis and failed or unknown below it, with every fault window shaded and named.
 */
final class TimelineChart {

    private static final int WIDTH = 1200;
    private static final int HEIGHT = 460;
    private static final int LEFT = 70;
    private static final int RIGHT = WIDTH - 20;
    private static final int TOP = 70;
    private static final int BOTTOM = HEIGHT - 60;
    private static final Color OK = new Color(0x2ca02c);
    private static final Color FAIL = new Color(0xd62728);
    private static final Color INFO = new Color(0xff7f0e);
    private static final Color[] SHADES = {
        new Color(0x1f77b4), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2),
        new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf), new Color(0xff9896)
    };

    private TimelineChart() {}

    static void render(History history, String title, Path png) throws IOException {
        double seconds = Math.max(1, (history.runEnd() - history.runStart()) / 1e9);
        int buckets = (int) Math.ceil(seconds);
        int[] ok = new int[buckets];
        int[] failed = new int[buckets];
        int[] unknown = new int[buckets];
        for (Operation op : history.operations().values()) {
            if (op.completedAt() == null) {
                continue;
            }
            int second = (int) ((op.completedAt() - history.runStart()) / 1_000_000_000L);
            if (second < 0 || second >= buckets) {
                continue;
            }
            switch (op.outcome()) {
                case OK -> ok[second]++;
                case FAIL -> failed[second]++;
                default -> unknown[second]++;
            }
        }
        int up = Math.max(1, max(ok));
        int down = Math.max(1, maxSum(failed, unknown));
        int zero = TOP + (int) Math.round((BOTTOM - TOP) * up / (double) (up + down));
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
            g.drawString(title, LEFT, 22);
            drawFaults(g, history, seconds);
            drawBars(g, ok, zero, up, true, OK, null, seconds);
            drawBars(g, failed, zero, down, false, FAIL, null, seconds);
            drawBars(g, unknown, zero, down, false, INFO, failed, seconds);
            drawAxes(g, seconds, zero, up, down);
            drawLegend(g);
        } finally {
            g.dispose();
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        ImageIO.write(image, "png", png.toFile());
    }

    private static void drawFaults(Graphics2D g, History history, double seconds) {
        Map<String, Color> colors = new LinkedHashMap<>();
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        FontMetrics metrics = g.getFontMetrics();
        int row = 0;
        for (FaultWindow fault : history.faults()) {
            Color base = colors.computeIfAbsent(fault.name(), name -> SHADES[colors.size() % SHADES.length]);
            int x0 = x((fault.start() - history.runStart()) / 1e9, seconds);
            int x1 = Math.max(x0 + 2, x((fault.end() - history.runStart()) / 1e9, seconds));
            g.setColor(new Color(base.getRed(), base.getGreen(), base.getBlue(), 45));
            g.fillRect(x0, TOP, x1 - x0, BOTTOM - TOP);
            g.setColor(base.darker());
            int labelY = TOP - 8 - 12 * (row++ % 2);
            g.drawString(fault.name(), Math.min(x0, RIGHT - metrics.stringWidth(fault.name())), labelY);
        }
    }

    private static void drawBars(
            Graphics2D g,
            int[] counts,
            int zero,
            int scale,
            boolean upwards,
            Color color,
            int @Nullable [] below,
            double seconds) {
        g.setColor(color);
        double perSecond = (RIGHT - LEFT) / seconds;
        int width = Math.max(1, (int) Math.floor(perSecond) - 1);
        int room = upwards ? zero - TOP : BOTTOM - zero;
        for (int s = 0; s < counts.length; s++) {
            if (counts[s] == 0) {
                continue;
            }
            int offset = below == null ? 0 : (int) Math.round(room * below[s] / (double) scale);
            int height = Math.max(1, (int) Math.round(room * counts[s] / (double) scale));
            int x = x(s, seconds);
            g.fillRect(x, upwards ? zero - height : zero + offset, width, height);
        }
    }

    private static void drawAxes(Graphics2D g, double seconds, int zero, int up, int down) {
        g.setColor(Color.DARK_GRAY);
        g.setStroke(new BasicStroke(1f));
        g.drawLine(LEFT, TOP, LEFT, BOTTOM);
        g.drawLine(LEFT, zero, RIGHT, zero);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        FontMetrics metrics = g.getFontMetrics();
        String top = Integer.toString(up);
        String bottom = Integer.toString(down);
        g.drawString(top, LEFT - 6 - metrics.stringWidth(top), TOP + 4);
        g.drawString("0", LEFT - 6 - metrics.stringWidth("0"), zero + 4);
        g.drawString(bottom, LEFT - 6 - metrics.stringWidth(bottom), BOTTOM + 4);
        int step = niceStep(seconds);
        for (int s = 0; s <= seconds; s += step) {
            int x = x(s, seconds);
            g.drawLine(x, BOTTOM, x, BOTTOM + 4);
            String label = s + " s";
            g.drawString(label, x - metrics.stringWidth(label) / 2, BOTTOM + 18);
        }
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.drawString("operations completed per second", -(TOP + BOTTOM) / 2 - 85, 18);
        rotated.dispose();
    }

    private static void drawLegend(Graphics2D g) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        int x = LEFT;
        int y = HEIGHT - 16;
        for (Object[] entry : List.of(
                new Object[] {OK, "ok (acknowledged increments), above the axis"},
                new Object[] {FAIL, "fail (known not applied), below"},
                new Object[] {INFO, "info (outcome unknown), below"},
                new Object[] {new Color(0x1f77b4, false), "shaded: fault windows, injection to heal"})) {
            g.setColor((Color) entry[0]);
            g.fillRect(x, y - 9, 14, 9);
            g.setColor(Color.BLACK);
            g.drawString((String) entry[1], x + 18, y);
            x += g.getFontMetrics().stringWidth((String) entry[1]) + 40;
        }
    }

    private static int x(double second, double seconds) {
        return LEFT + (int) Math.round(second / seconds * (RIGHT - LEFT));
    }

    private static int niceStep(double seconds) {
        for (int step : new int[] {1, 2, 5, 10, 15, 30, 60, 120, 300, 600}) {
            if (seconds / step <= 20) {
                return step;
            }
        }
        return 1200;
    }

    private static int max(int[] values) {
        int max = 0;
        for (int value : values) {
            max = Math.max(max, value);
        }
        return max;
    }

    private static int maxSum(int[] first, int[] second) {
        int max = 0;
        for (int i = 0; i < first.length; i++) {
            max = Math.max(max, first[i] + second[i]);
        }
        return max;
    }
}

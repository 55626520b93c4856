package dev.fencelock.verification;

import dev.fencelock.verification.checker.CheckResult;
import dev.fencelock.verification.checker.DatabaseSnapshot;
import dev.fencelock.verification.checker.FaultWindow;
import dev.fencelock.verification.checker.History;
import dev.fencelock.verification.checker.HistoryChecker;
import dev.fencelock.verification.checker.HistoryFiles;
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
    private static final int HEIGHT = 480;
    private static final int LEFT = 70;
    private static final int RIGHT = WIDTH - 20;
    private static final int TOP = 70;
    private static final int BOTTOM = HEIGHT - 80;
    private static final Color OK = new Color(0x2ca02c);
    private static final Color FAIL = new Color(0xd62728);
    private static final Color INFO = new Color(0xff7f0e);
    private static final Color[] SHADES = {
        new Color(0x1f77b4), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2),
        new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf), new Color(0xff9896)
    };

    private TimelineChart() {}

    /**
     * Draws the picture of finished runs again from their directories alone ({@code TimelineChart <run directory>
     * ...}), checking each again for the title.
     */
    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        for (String arg : args) {
            Path directory = Path.of(arg);
            History history = HistoryFiles.read(directory);
            CheckResult check = HistoryChecker.check(history, DatabaseSnapshot.read(directory));
            Path png = directory.resolve(directory.getFileName() + "-timeline.png");
            render(
                    history,
                    directory.getFileName() + ": " + check.ok() + " ok, " + check.fail() + " fail, " + check.info()
                            + " info, " + check.anomalies().size() + " anomalies",
                    png);
            System.out.println(png);
        }
    }

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
            Map<String, Color> faultColors = drawFaults(g, history, seconds);
            drawBars(g, ok, zero, up, true, OK, null, seconds);
            drawBars(g, failed, zero, down, false, FAIL, null, seconds);
            drawBars(g, unknown, zero, down, false, INFO, failed, seconds);
            drawAxes(g, seconds, zero, up, down);
            drawLegend(g, faultColors);
        } finally {
            g.dispose();
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        ImageIO.write(image, "png", png.toFile());
    }

    /** Shades every fault window; names it above the plot where there is room, and always in the legend. */
    private static Map<String, Color> drawFaults(Graphics2D g, History history, double seconds) {
        Map<String, Color> colors = new LinkedHashMap<>();
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        FontMetrics metrics = g.getFontMetrics();
        int[] rowEnds = {Integer.MIN_VALUE, Integer.MIN_VALUE};
        for (FaultWindow fault : history.faults()) {
            Color base = colors.computeIfAbsent(fault.name(), name -> SHADES[colors.size() % SHADES.length]);
            int x0 = x((fault.start() - history.runStart()) / 1e9, seconds);
            int x1 = Math.max(x0 + 2, x((fault.end() - history.runStart()) / 1e9, seconds));
            g.setColor(new Color(base.getRed(), base.getGreen(), base.getBlue(), 45));
            g.fillRect(x0, TOP, x1 - x0, BOTTOM - TOP);
            int width = metrics.stringWidth(fault.name());
            int labelX = Math.min(x0, RIGHT - width);
            for (int row = 0; row < rowEnds.length; row++) {
                if (rowEnds[row] < labelX - 6) {
                    g.setColor(base.darker());
                    g.drawString(fault.name(), labelX, TOP - 8 - 12 * row);
                    rowEnds[row] = labelX + width;
                    break;
                }
            }
        }
        return colors;
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
        if (BOTTOM - zero > 14) {
            g.drawString(bottom, LEFT - 6 - metrics.stringWidth(bottom), BOTTOM + 4);
        }
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

    private static void drawLegend(Graphics2D g, Map<String, Color> faultColors) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        int x = LEFT;
        int y = HEIGHT - 36;
        for (Object[] entry : List.of(
                new Object[] {OK, "ok (acknowledged increments), above the axis"},
                new Object[] {FAIL, "fail (known not applied), below"},
                new Object[] {INFO, "info (outcome unknown), below"})) {
            x = legendEntry(g, (Color) entry[0], (String) entry[1], x, y);
        }
        x = LEFT;
        y = HEIGHT - 16;
        g.setColor(Color.BLACK);
        g.drawString("fault windows, injection to heal:", x, y);
        x += g.getFontMetrics().stringWidth("fault windows, injection to heal:") + 12;
        for (Map.Entry<String, Color> fault : faultColors.entrySet()) {
            Color base = fault.getValue();
            x = legendEntry(g, new Color(base.getRed(), base.getGreen(), base.getBlue(), 90), fault.getKey(), x, y);
        }
    }

    private static int legendEntry(Graphics2D g, Color color, String label, int x, int y) {
        g.setColor(color);
        g.fillRect(x, y - 9, 14, 9);
        g.setColor(Color.BLACK);
        g.drawString(label, x + 18, y);
        return x + g.getFontMetrics().stringWidth(label) + 36;
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

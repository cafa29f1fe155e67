package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.analysis.heads.HeadPattern;
import io.headscope.app.gui.style.Theme;
import io.headscope.app.render.CategoryColors;
import io.headscope.app.render.Palette;
import io.headscope.app.render.UiColor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The stylesheet writes no colour of its own: every colour it uses comes from the Java palette. */
class ThemeTest {

  private static String stylesheet() throws IOException {
    try (InputStream in = Theme.class.getResourceAsStream(Theme.STYLESHEET)) {
      assertThat(in).as(Theme.STYLESHEET).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void everyLookedUpColourTheStylesheetUsesIsDefinedByThePaletteOrTheStylesheet() throws IOException {
    String css = stylesheet().replaceAll("(?s)/\\*.*?\\*/", "");
    Map<String, Integer> palette = Palette.lookedUpColors();
    Set<String> defined = new TreeSet<>(palette.keySet());
    Matcher def = Pattern.compile("(-hs-[a-z-]+)\\s*:").matcher(css);
    while (def.find()) {
      defined.add(def.group(1));
    }
    Matcher use = Pattern.compile(":\\s*(-hs-[a-z-]+)").matcher(css);
    int uses = 0;
    while (use.find()) {
      uses++;
      assertThat(defined).as("defined looked-up colours").contains(use.group(1));
    }
    assertThat(uses).isGreaterThan(10);
    assertThat(css).as("hex colours in headscope.css").doesNotContainPattern("#[0-9a-fA-F]{3,6}\\b");
  }

  @Test
  void thePaletteNamesEveryCategoryAndEveryUiColourOnce() {
    Map<String, Integer> palette = Palette.lookedUpColors();
    for (HeadPattern p : HeadPattern.values()) {
      assertThat(palette).containsEntry("-hs-" + CategoryColors.cssName(p), CategoryColors.rgb(p));
    }
    assertThat(palette).containsEntry("-hs-off", UiColor.OFF.rgb());
    assertThat(palette).containsEntry("-hs-category-vertical-diagonal", 0xCC79A7);
  }
}

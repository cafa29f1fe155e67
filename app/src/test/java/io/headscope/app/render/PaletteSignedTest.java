package io.headscope.app.render;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The signed (difference) side of the palette, by hand. */
class PaletteSignedTest {
  @Test
  void signedPoolingKeepsEachBlocksLargestMagnitudeWithItsSign() {
    float[][] m = {
        {0.1f, -0.5f, 0.2f, 0.0f},
        {0.3f, 0.2f, -0.1f, 0.05f},
        {0.0f, 0.0f, 0.4f, -0.45f},
        {-0.2f, 0.1f, 0.0f, 0.0f}};
    float[][] p = Palette.pooledSigned(m, 2);
    assertThat(p).isDeepEqualTo(new float[][] {{-0.5f, 0.2f}, {-0.2f, -0.45f}});
    assertThat(Palette.maxAbs(m)).isEqualTo(0.5, org.assertj.core.api.Assertions.within(1e-7));
    assertThat(Palette.pooledSigned(m, 4)).isSameAs(m);
  }

  @Test
  void divergingPixelsAreWhiteAtZeroAndTheEndColoursAtPlusMinusMax() {
    int[] px = Palette.divergingPixels(new float[][] {{0f, -2f, 2f, 5f}}, 2);
    assertThat(px[0]).isEqualTo(0xFFFFFFFF);
    assertThat(px[1]).isEqualTo(0xFFB2182B);
    assertThat(px[2]).isEqualTo(0xFF2166AC);
    assertThat(px[3]).isEqualTo(px[2]); // clamped
  }
}

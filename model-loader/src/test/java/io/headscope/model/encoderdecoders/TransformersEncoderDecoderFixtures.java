package io.headscope.model.encoderdecoders;

import io.headscope.model.testing.HubFixture;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The encoder-decoders' transformers fixtures (see {@link TransformersParityTest}) for tests elsewhere (the CLI's):
 * the folder, source and target, transformers' ids and its three kinds of maps, each entry with the bound {@code 8
 * sigma + |R - X|} that test derives.
 */
public final class TransformersEncoderDecoderFixtures {
  private TransformersEncoderDecoderFixtures() {}

  public static Path folder(String name) {
    return HubFixture.named(name).folder;
  }

  /** {@code text} (the source) or {@code target}. */
  public static String text(String name, String key) {
    return HubFixture.named(name).text(key);
  }

  /** {@code ids} (the source) or {@code target_ids}. */
  public static long[] ids(String name, String key) {
    return HubFixture.named(name).ids(key);
  }

  /** By the CLI's key ({@code encoder_attention}, ...): {@code [0]} transformers' maps, {@code [1]} each entry's bound. */
  public static Map<String, double[][][][][]> mapsAndBounds(String name) {
    HubFixture f = HubFixture.named(name);
    EncoderDecoderReference.Result r = EncoderDecoderReference.run(TransformersParityTest.reference(f), f.ids("ids"),
        f.ids("target_ids"));
    Map<String, double[][][][][]> out = new LinkedHashMap<>();
    out.put("encoder_attention", bounded(f.maps("encoder_attention"), r.encoder(), r.encoderSigma()));
    out.put("decoder_attention", bounded(f.maps("decoder_attention"), r.decoder(), r.decoderSigma()));
    out.put("cross_attention", bounded(f.maps("cross_attention"), r.cross(), r.crossSigma()));
    return out;
  }

  private static double[][][][][] bounded(double[][][][] x, double[][][][] ref, double[][][][] sigma) {
    return HubFixture.withParityBounds(x, ref, sigma, EncoderDecoderReference.LAMBDA);
  }
}

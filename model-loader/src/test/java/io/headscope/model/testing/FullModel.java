package io.headscope.model.testing;

import io.headscope.model.BertModel;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.ModelRepository;
import io.headscope.model.store.ProgressListener;

/**
 * The embedded bert-base-uncased, loaded once per test JVM (the few tests that need the real
 * model share it). Conversion goes to the user's standard cache, as the app's does.
 */
public final class FullModel {
  private static BertModel erf;
  private static BertModel tanh;

  private FullModel() {}

  public static synchronized ModelFiles files() {
    return ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
  }

  /** As Hugging Face configures it: exact (erf) GELU. */
  public static synchronized BertModel uncased() {
    if (erf == null) {
      erf = BertModel.load(files());
      Runtime.getRuntime().addShutdownHook(new Thread(erf::close));
    }
    return erf;
  }

  /** As Google trained and exported it: tanh GELU, for parity with TensorFlow's graph. */
  public static synchronized BertModel uncasedTanh() {
    if (tanh == null) {
      tanh = BertModel.load(files(), "gelu_new");
      Runtime.getRuntime().addShutdownHook(new Thread(tanh::close));
    }
    return tanh;
  }
}

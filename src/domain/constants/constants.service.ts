export interface ConstantsService {
  list(input: { q?: string; limit?: number; cursor?: string }): Promise<any>;
  get(key: string): Promise<any>;
}

export interface MachinesService {
  placeholder?: never;
}
